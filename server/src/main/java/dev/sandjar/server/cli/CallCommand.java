package dev.sandjar.server.cli;

import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.ValueJson;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sandjar call FILE.js FUNCTION [--args JSON]}: calls an exported function of the module in
 * a fresh context with the arguments of a JSON array (docs/sessions.md, "Lambdas"), and prints what
 * it returns as JSON, like {@code run}. It takes the run options.
 */
final class CallCommand {
    static final String USAGE =
            String.join(
                    "\n",
                    "       sandjar call FILE.js FUNCTION [--args JSON] [run options]",
                    "call options:",
                    "  --args JSON              the arguments, a JSON array (default [];"
                            + " transport markers allowed)");

    private CallCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        String[] function = new String[1];
        String[] json = new String[1];
        int[] positional = new int[1];
        SandjarCli.Options options =
                SandjarCli.Options.parse(
                        args,
                        "call",
                        (a, i) -> {
                            if (a[i].equals("--args")) {
                                json[0] = SandjarCli.value(a, i + 1, "--args");
                                return i + 1;
                            }
                            if (!a[i].startsWith("--") && ++positional[0] == 2) {
                                function[0] = a[i];
                                return i;
                            }
                            return -1;
                        });
        if (function[0] == null) {
            throw new IllegalArgumentException("call needs FILE.js FUNCTION");
        }
        List<Object> values = new ArrayList<>();
        if (json[0] != null) {
            Object parsed;
            try {
                parsed = ValueJson.read(json[0], "--args");
            } catch (InvalidRequestException e) {
                throw new IllegalArgumentException("--args: " + e.getMessage(), e);
            }
            if (!(parsed instanceof List<?> list)) {
                throw new IllegalArgumentException("--args must be a JSON array, got " + json[0]);
            }
            values.addAll(list);
        }
        return SandjarCli.run(options, out, err, function[0], values);
    }
}
