package dev.sandjar.bridges.fetch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.InvalidRequestException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Host header depends on a system property the JDK reads once; these run fresh JVMs to show
 * both sides of that moment.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostHeaderTest {

    private static Result runProbe(String... jvmFlags) throws Exception {
        String classpath =
                Path.of(
                                FetchExecutor.class
                                        .getProtectionDomain()
                                        .getCodeSource()
                                        .getLocation()
                                        .toURI())
                        + java.io.File.pathSeparator
                        // the fetch configuration's errors are the core's
                        + Path.of(
                                InvalidRequestException.class
                                        .getProtectionDomain()
                                        .getCodeSource()
                                        .getLocation()
                                        .toURI())
                        + java.io.File.pathSeparator
                        + Path.of(
                                HostHeaderProbeMain.class
                                        .getProtectionDomain()
                                        .getCodeSource()
                                        .getLocation()
                                        .toURI());
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmFlags));
        command.addAll(List.of("-cp", classpath, HostHeaderProbeMain.class.getName()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "probe JVM hung");
        return new Result(process.exitValue(), output);
    }

    private record Result(int exit, String output) {}

    @Test
    void executorRefusesToStartWhenJavaNetHttpWasInitialisedFirst() throws Exception {
        Result result = runProbe();
        assertEquals(3, result.exit(), result.output());
        assertTrue(
                result.output().contains("-Djdk.httpclient.allowRestrictedHeaders=host"),
                result.output());
    }

    @Test
    void commandLinePropertyMakesTheOrderIrrelevant() throws Exception {
        Result result = runProbe("-Djdk.httpclient.allowRestrictedHeaders=connection,host");
        assertEquals(0, result.exit(), result.output());
    }

    @Test
    void thisJvmLetFetchSetThePropertyInTime() {
        HostHeader.requireAllowed();
        String value = System.getProperty(HostHeader.PROPERTY);
        assertTrue(List.of(value.split(",")).contains("host"), value);
    }
}
