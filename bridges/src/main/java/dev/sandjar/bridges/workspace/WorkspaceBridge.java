package dev.sandjar.bridges.workspace;

import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunSession;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The guest's {@code workspace} object over a root directory: {@code
 * request.bridge(WorkspaceBridge.create(root).bridge())}. Immutable and thread-safe; each run gets
 * its own {@link Workspace} (its own per-run byte totals), closed when the run ends.
 *
 * <p>Guest surface (all return Promises except {@code root()}): {@code read(path)} (UTF-8 text),
 * {@code readBytes(path)} (Uint8Array), {@code write(path, text)}, {@code writeBytes(path, bytes)},
 * {@code list(path?)} ({@code [{name, type, size}]}), {@code stat(path)} ({@code {type, size,
 * modified}} with a Date), {@code root()}, {@code copy(from, to, {overwrite})}, {@code move(from,
 * to, {overwrite})}, {@code mkdir(path, {recursive})}, {@code remove(path, {recursive})}. Paths,
 * containment, atomic writes and limits are {@link Workspace}'s; its errors reach the guest as
 * {@code WorkspaceError}s whose {@code code} is a {@link WorkspaceException.Code} name.
 */
public final class WorkspaceBridge {
    private static final String GUEST = GuestScripts.load(WorkspaceBridge.class, "workspace.js");

    private final Path root;
    private final WorkspaceLimits limits;
    private final FilesystemAccess access;
    private final Bridge bridge;

    private WorkspaceBridge(Path root, WorkspaceLimits limits, FilesystemAccess access) {
        this.root = Objects.requireNonNull(root, "root");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.access = Objects.requireNonNull(access, "access");
        Param path = Param.string("path").maxLength(4096);
        this.bridge =
                Bridge.builder("workspace")
                        .guest(GUEST)
                        .operation(async("read", List.of(path), (ws, c) -> ws.read(c.string(0))))
                        .operation(
                                async(
                                        "readBytes",
                                        List.of(path),
                                        (ws, c) -> ws.readBytes(c.string(0))))
                        .operation(
                                async(
                                        "write",
                                        List.of(path, Param.string("text")),
                                        (ws, c) -> {
                                            ws.write(c.string(0), c.string(1));
                                            return null;
                                        }))
                        .operation(
                                async(
                                        "writeBytes",
                                        List.of(path, Param.bytes("bytes")),
                                        (ws, c) -> {
                                            ws.writeBytes(c.string(0), c.bytes(1));
                                            return null;
                                        }))
                        .operation(
                                async(
                                        "list",
                                        List.of(path),
                                        (ws, c) ->
                                                ws.list(c.string(0)).stream()
                                                        .map(WorkspaceBridge::entry)
                                                        .toList()))
                        .operation(
                                async("stat", List.of(path), (ws, c) -> stat(ws.stat(c.string(0)))))
                        .operation(
                                Operation.builder("root")
                                        .handler(c -> workspace(c.session()).root())
                                        .build())
                        .operation(
                                async(
                                        "copy",
                                        List.of(
                                                Param.string("from").maxLength(4096),
                                                Param.string("to").maxLength(4096),
                                                Param.bool("overwrite")),
                                        (ws, c) -> {
                                            ws.copy(c.string(0), c.string(1), c.bool(2, false));
                                            return null;
                                        }))
                        .operation(
                                async(
                                        "move",
                                        List.of(
                                                Param.string("from").maxLength(4096),
                                                Param.string("to").maxLength(4096),
                                                Param.bool("overwrite")),
                                        (ws, c) -> {
                                            ws.move(c.string(0), c.string(1), c.bool(2, false));
                                            return null;
                                        }))
                        .operation(
                                async(
                                        "mkdir",
                                        List.of(path, Param.bool("recursive")),
                                        (ws, c) -> {
                                            ws.mkdir(c.string(0), c.bool(1, false));
                                            return null;
                                        }))
                        .operation(
                                async(
                                        "remove",
                                        List.of(path, Param.bool("recursive")),
                                        (ws, c) -> {
                                            ws.remove(c.string(0), c.bool(1, false));
                                            return null;
                                        }))
                        .build();
    }

    /** A contained workspace over {@code root} with the default limits. */
    public static WorkspaceBridge create(Path root) {
        return new WorkspaceBridge(root, WorkspaceLimits.defaults(), FilesystemAccess.CONTAINED);
    }

    /**
     * A workspace over {@code root}. {@link FilesystemAccess#HOST} lifts containment: only for a
     * trusted caller, never for guest-chosen settings.
     */
    public static WorkspaceBridge create(
            Path root, WorkspaceLimits limits, FilesystemAccess access) {
        return new WorkspaceBridge(root, limits, access);
    }

    public Bridge bridge() {
        return bridge;
    }

    /**
     * A file's bytes, read for another bridge of the same run (media refs) through this run's
     * workspace: the same containment, per-read limit and per-run totals as the guest's {@code
     * readBytes}. Blocking: call it off the engine thread. Throws {@link BridgeException} ({@code
     * WorkspaceError}) as the guest's call would.
     */
    public byte[] readBytes(RunSession session, String path) {
        Workspace ws = workspace(session);
        return (byte[]) guarded(() -> ws.readBytes(path)).get();
    }

    private interface Action {
        Object apply(Workspace ws, OperationCall call);
    }

    private Operation async(String name, List<Param> params, Action action) {
        Operation.Builder b = Operation.builder(name);
        params.forEach(b::param);
        return b.handler(
                        call -> {
                            Workspace ws = workspace(call.session());
                            return CompletableFuture.supplyAsync(
                                    guarded(() -> action.apply(ws, call)),
                                    call.session().executor());
                        })
                .build();
    }

    private static Supplier<Object> guarded(Supplier<Object> work) {
        return () -> {
            try {
                return work.get();
            } catch (WorkspaceException e) {
                throw new BridgeException("WorkspaceError", e.code().name(), e.getMessage(), e);
            }
        };
    }

    /** This run's workspace, opened on first use and closed when the run ends. */
    private Workspace workspace(RunSession session) {
        return session.state(
                this,
                () -> {
                    Workspace ws;
                    try {
                        ws =
                                Workspace.builder(root)
                                        .withLimits(limits)
                                        .withFilesystemAccess(access)
                                        .withCancellation(session::isCancelled)
                                        .build();
                    } catch (WorkspaceException e) {
                        throw new BridgeException(
                                "WorkspaceError", e.code().name(), e.getMessage(), e);
                    }
                    session.onEnd(ws::close);
                    return ws;
                });
    }

    private static Map<String, Object> entry(Entry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", e.name());
        m.put("type", e.type().name().toLowerCase(Locale.ROOT));
        m.put("size", e.size());
        return m;
    }

    private static Map<String, Object> stat(Stat s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", s.type().name().toLowerCase(Locale.ROOT));
        m.put("size", s.size());
        m.put("modified", s.modified());
        return m;
    }
}
