package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The container image definition and the Kubernetes manifests agree with the server they deploy:
 * the main class, the port, the probe routes, and a termination grace longer than the drain grace
 * (else Kubernetes kills runs SIGTERM was letting finish).
 */
class DeploymentFilesTest {
    private static final Path DEPLOY = Path.of("..", "deploy");

    @Test
    void theImageRunsTheServeVerbOnTheDefaultPort() throws Exception {
        String image = Files.readString(DEPLOY.resolve("Containerfile"));
        assertTrue(image.contains(dev.sandjar.server.cli.SandjarCli.class.getName() + " serve"));
        assertTrue(image.contains("EXPOSE " + SandjarServer.DEFAULT_PORT));
        assertTrue(image.contains("<sandjar.jit.flags>"), "the JIT flags come from the pom");
    }

    @Test
    void theManifestsProbesPortAndGraceFitTheServer() throws Exception {
        String k8s = Files.readString(DEPLOY.resolve("kubernetes.yaml"));
        assertTrue(k8s.contains("containerPort: " + SandjarServer.DEFAULT_PORT));
        assertTrue(k8s.contains("path: /healthz") && k8s.contains("path: /readyz"));
        int termination = number(k8s, "terminationGracePeriodSeconds: (\\d+)");
        int drain = number(k8s, "\"--grace-seconds\", \"(\\d+)\"");
        assertTrue(termination > drain, termination + " s must exceed the drain grace " + drain);
        assertEquals(1, count(k8s, "\nkind: Deployment"));
        assertEquals(1, count(k8s, "\nkind: Service\n"));
        assertEquals(1, count(k8s, "\nkind: HorizontalPodAutoscaler"));
    }

    private static int number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), "no " + regex);
        return Integer.parseInt(m.group(1));
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
