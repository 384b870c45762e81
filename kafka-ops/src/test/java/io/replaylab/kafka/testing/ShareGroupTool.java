package io.replaylab.kafka.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.apache.kafka.tools.consumer.group.ShareGroupCommand;
import org.apache.kafka.tools.consumer.group.ShareGroupCommandOptions;

/**
 * Kafka's own {@code kafka-share-groups.sh} ({@code ShareGroupCommand} from kafka-tools), run in-process for parity
 * tests: its printed tables, split into rows of columns. The tool prints to {@code System.out}, so runs are serialized.
 */
public final class ShareGroupTool {
    private static final Pattern SPACES = Pattern.compile("\\s+");

    private ShareGroupTool() {
    }

    /** What one run printed and returned. */
    public record Run(int exitCode, String out, String err) {
        /** The rows of the table whose header starts with {@code firstColumn}, each split into its columns (header left out). */
        public List<List<String>> rows(String firstColumn) {
            List<List<String>> rows = new ArrayList<>();
            boolean inTable = false;
            for (String line : out.lines().map(String::strip).toList()) {
                if (line.isEmpty()) {
                    continue;
                }
                List<String> cols = List.of(SPACES.split(line));
                if (cols.get(0).equals(firstColumn)) {
                    inTable = true;
                } else if (inTable) {
                    rows.add(cols);
                }
            }
            return rows;
        }
    }

    /** Runs {@code kafka-share-groups.sh} with these arguments (the bootstrap is given by the caller). */
    public static synchronized Run run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            // what main does, without its System.exit
            ShareGroupCommandOptions opts = new ShareGroupCommandOptions(args);
            opts.checkArgs();
            ShareGroupCommand.run(opts);
            return new Run(0, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } catch (Exception x) {
            System.err.println(x);
            return new Run(1, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }
}
