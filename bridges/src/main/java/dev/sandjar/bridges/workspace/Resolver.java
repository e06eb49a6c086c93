package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Errors.io;
import static dev.sandjar.bridges.workspace.Errors.refuse;
import static dev.sandjar.bridges.workspace.Location.closeQuietly;

import dev.sandjar.bridges.workspace.Location.Staging;
import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Set;

/**
 * Turns a caller's path into a {@link Location}: an open handle on its parent directory and its
 * name there. This is where containment is enforced.
 *
 * <p>In contained mode every path is resolved one component at a time through {@link
 * SecureDirectoryStream} handles, starting from a handle on the root opened at construction, each
 * component opened relative to its parent's handle with {@link LinkOption#NOFOLLOW_LINKS} ({@code
 * openat} with {@code O_NOFOLLOW}). The operation itself ({@code open}, {@code fstatat}, {@code
 * renameat}, {@code unlinkat}) is then made on the final parent handle. Nothing is checked by path
 * and then used by path, so a directory swapped for a symbolic link at any moment makes the
 * operation fail ({@code SYMLINK}, {@code NOT_FOUND}); it never reaches outside the root.
 *
 * <p>Symbolic links are never followed, including links whose target is inside the root. Java
 * exposes no {@code readlinkat}, so following a link would mean reading its target by path;
 * refusing is the choice that has no window at all. A path that changes while it is resolved may
 * fail with {@code IO} (the OS's reason) rather than {@code SYMLINK}.
 *
 * <p>In host mode the OS resolves the path and follows links (the caller is trusted); the operation
 * then runs on the real parent's handle like a contained one.
 */
final class Resolver implements AutoCloseable {
    static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

    private final Path rootPath;
    private final SecureDirectoryStream<Path> rootDir;
    private final Staging rootStaging;
    private final Path dot;
    private final FilesystemAccess access;

    Resolver(Path rootPath, SecureDirectoryStream<Path> rootDir, FilesystemAccess access) {
        this.rootPath = rootPath;
        this.rootDir = rootDir;
        this.rootStaging = new Staging(rootPath, rootDir);
        this.dot = rootPath.getFileSystem().getPath(".");
        this.access = access;
    }

    /**
     * Opens {@code dir} as a {@link SecureDirectoryStream}.
     *
     * @throws UnsupportedOperationException if the platform offers none, without which containment
     *     cannot be enforced
     */
    static SecureDirectoryStream<Path> openSecure(Path dir) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
        if (stream instanceof SecureDirectoryStream) {
            return (SecureDirectoryStream<Path>) stream;
        }
        stream.close();
        throw new UnsupportedOperationException(
                "this platform has no SecureDirectoryStream (openat); a contained workspace"
                        + " cannot be enforced here");
    }

    Path rootPath() {
        return rootPath;
    }

    /** The handle on the root, held for the workspace's life. */
    SecureDirectoryStream<Path> rootDir() {
        return rootDir;
    }

    /** Where new directories under the root are staged (see {@link Staging}). */
    Staging rootStaging() {
        return rootStaging;
    }

    FileSystem fileSystem() {
        return dot.getFileSystem();
    }

    FilesystemAccess access() {
        return access;
    }

    Location locate(String op, String raw) throws IOException {
        if (access == FilesystemAccess.HOST) {
            return locateOnHost(op, raw);
        }
        GuestPath path = GuestPath.parse(op, raw);
        String shown = GuestPath.quote(raw);
        List<String> names = path.names();
        Path key = virtualKey(op, raw, names);
        if (path.isRoot()) {
            return new Location(rootDir, dot, shown, Workspace.GUEST_ROOT, key, rootStaging, false);
        }
        SecureDirectoryStream<Path> dir = rootDir;
        try {
            for (int i = 0; i < names.size() - 1; i++) {
                SecureDirectoryStream<Path> next =
                        openDir(op, shown, dir, name(op, raw, names.get(i)), path.prefix(i + 1));
                if (dir != rootDir) {
                    dir.close();
                }
                dir = next;
            }
            Path last = name(op, raw, names.get(names.size() - 1));
            return new Location(
                    dir, last, shown, path.canonical(), key, rootStaging, dir != rootDir);
        } catch (IOException | RuntimeException e) {
            if (dir != rootDir) {
                closeQuietly(dir);
            }
            throw e;
        }
    }

    /**
     * Host mode: the OS resolves the path, following links (the caller is trusted), and the
     * operation then runs on the real parent directory like a contained one.
     */
    private Location locateOnHost(String op, String raw) throws IOException {
        GuestPath.checkCommon(op, raw);
        String shown = GuestPath.quote(raw);
        Path path;
        try {
            path = rootPath.resolve(raw).normalize();
        } catch (InvalidPathException e) {
            throw refuse(Code.INVALID_PATH, op, shown, "not a valid host path");
        }
        Path real;
        try {
            real = path.toRealPath();
        } catch (NoSuchFileException e) {
            Path parent = path.getParent();
            try {
                real = parent.toRealPath().resolve(path.getFileName());
            } catch (NoSuchFileException e2) {
                throw refuse(Code.NOT_FOUND, op, shown, parent + " does not exist");
            }
        }
        Path parent = real.getParent();
        Path dirPath = parent == null ? real : parent;
        SecureDirectoryStream<Path> dir;
        try {
            dir = openSecure(dirPath);
        } catch (NotDirectoryException e) {
            throw refuse(Code.NOT_A_DIRECTORY, op, shown, dirPath + " is not a directory");
        }
        Path name = parent == null ? dot : real.getFileName();
        return new Location(
                dir, name, shown, real.toString(), real, new Staging(dirPath, dir), true);
    }

    /** The operand as a path from "/" that names nothing on the host: used only to compare. */
    private Path virtualKey(String op, String raw, List<String> names) {
        Path key = rootPath.getRoot();
        for (String name : names) {
            key = key.resolve(name(op, raw, name));
        }
        return key;
    }

    /** One guest name as a host path component. */
    Path name(String op, String raw, String name) {
        try {
            return rootPath.getFileSystem().getPath(name);
        } catch (InvalidPathException e) {
            throw refuse(
                    Code.INVALID_PATH,
                    op,
                    GuestPath.quote(raw),
                    "a name cannot be represented on this host");
        }
    }

    /**
     * Opens directory {@code name} in {@code parent} without following a link. The type is checked
     * first only to fail clearly (and not to block opening a FIFO); the open itself is what is
     * safe, and a swap after the check makes it fail.
     */
    SecureDirectoryStream<Path> openDir(
            String op, String shown, SecureDirectoryStream<Path> parent, Path name, String subject)
            throws IOException {
        BasicFileAttributes attrs = lstatOrNull(parent, name);
        if (attrs == null) {
            throw refuse(Code.NOT_FOUND, op, shown, subject + " does not exist");
        }
        checkDirectory(op, shown, subject, attrs);
        try {
            return parent.newDirectoryStream(name, NOFOLLOW);
        } catch (IOException e) {
            BasicFileAttributes now = lstatOrNull(parent, name);
            if (now == null) {
                throw refuse(Code.NOT_FOUND, op, shown, subject + " does not exist");
            }
            checkDirectory(op, shown, subject, now);
            throw e;
        }
    }

    private void checkDirectory(String op, String shown, String subject, BasicFileAttributes a) {
        if (a.isSymbolicLink()) {
            throw refuse(Code.SYMLINK, op, shown, linkReason(subject));
        }
        if (!a.isDirectory()) {
            throw refuse(Code.NOT_A_DIRECTORY, op, shown, subject + " is not a directory");
        }
    }

    /** Why a link stops a call: contained mode never follows one; in host mode it dangles. */
    String linkReason(String subject) {
        return access == FilesystemAccess.HOST
                ? subject + " is a dangling symbolic link"
                : subject + " is a symbolic link; the workspace does not follow links";
    }

    /** Opens {@code loc} as a file relative to its parent's handle, never through a link. */
    SeekableByteChannel openFile(String op, Location loc, OpenOption option) throws IOException {
        try {
            return loc.dir.newByteChannel(loc.name, Set.<OpenOption>of(option, NOFOLLOW));
        } catch (IOException e) {
            throw failure(op, loc, e);
        }
    }

    /** Explains a failed call on {@code loc} by what is there now, falling back to the error. */
    WorkspaceException failure(String op, Location loc, IOException e) {
        BasicFileAttributes now;
        try {
            now = lstatOrNull(loc.dir, loc.name);
        } catch (IOException again) {
            return io(op, loc.shown, e);
        }
        if (now == null) {
            return refuse(Code.NOT_FOUND, op, loc.shown, loc.subject + " does not exist");
        }
        if (now.isSymbolicLink()) {
            return refuse(Code.SYMLINK, op, loc.shown, linkReason(loc.subject));
        }
        if (now.isDirectory() && !(e instanceof DirectoryNotEmptyException)) {
            return refuse(Code.IS_A_DIRECTORY, op, loc.shown, loc.subject + " is a directory");
        }
        return io(op, loc.shown, e);
    }

    /** What is at {@code loc} (a link described, not followed); {@code NOT_FOUND} if nothing. */
    BasicFileAttributes existing(String op, Location loc) throws IOException {
        BasicFileAttributes attrs = lstatOrNull(loc.dir, loc.name);
        if (attrs == null) {
            throw refuse(Code.NOT_FOUND, op, loc.shown, loc.subject + " does not exist");
        }
        return attrs;
    }

    /** Refuses anything but a regular file: a link, a directory, a FIFO, socket or device. */
    void requireFile(String op, Location loc, BasicFileAttributes attrs) {
        if (attrs.isSymbolicLink()) {
            throw refuse(Code.SYMLINK, op, loc.shown, linkReason(loc.subject));
        }
        if (attrs.isDirectory()) {
            throw refuse(Code.IS_A_DIRECTORY, op, loc.shown, loc.subject + " is a directory");
        }
        if (!attrs.isRegularFile()) {
            throw refuse(Code.NOT_A_FILE, op, loc.shown, loc.subject + " is a special file");
        }
    }

    /** {@code fstatat} with {@code AT_SYMLINK_NOFOLLOW}; null when nothing is there. */
    static BasicFileAttributes lstatOrNull(SecureDirectoryStream<Path> dir, Path name)
            throws IOException {
        try {
            return dir.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
                    .readAttributes();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    static EntryType typeOf(BasicFileAttributes attrs) {
        if (attrs.isSymbolicLink()) {
            return EntryType.SYMLINK;
        }
        if (attrs.isDirectory()) {
            return EntryType.DIRECTORY;
        }
        return attrs.isRegularFile() ? EntryType.FILE : EntryType.OTHER;
    }

    /** Closes the root handle; later resolutions fail. */
    @Override
    public void close() {
        closeQuietly(rootDir);
    }
}
