package io.cassandragsi.conf;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** Tails of a node's log files, for exception messages. */
final class Logs {
    private static final int MAX_BYTES = 64 * 1024;

    private Logs() {}

    /** The last {@code lines} lines of the file, or a note saying why there are none. */
    static String tail(Path file, int lines) {
        if (!Files.isRegularFile(file)) {
            return "(no " + file + ")";
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            long length = raf.length();
            int size = (int) Math.min(length, MAX_BYTES);
            byte[] bytes = new byte[size];
            raf.seek(length - size);
            raf.readFully(bytes);
            List<String> all = Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\n"));
            List<String> last = all.subList(Math.max(0, all.size() - lines), all.size());
            return String.join("\n", last);
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    /** The tails of the node's system.log and stdout.log, each under a header. */
    static String nodeTails(NodeSpec node, int lines) {
        return "--- last lines of "
                + node.systemLog()
                + " ---\n"
                + tail(node.systemLog(), lines)
                + "\n--- last lines of "
                + node.stdoutLog()
                + " ---\n"
                + tail(node.stdoutLog(), lines);
    }
}
