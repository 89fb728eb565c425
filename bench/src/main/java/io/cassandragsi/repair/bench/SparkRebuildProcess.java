package io.cassandragsi.repair.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cassandragsi.repair.cli.CommandFailedException;
import io.cassandragsi.repair.cli.SparkCommand;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts {@link SparkRebuildRun} in a child JVM for {@code gsi bench bulk}: the bench JVM runs on
 * the product jar, which carries no Spark (docs/performance.md, "Bulk rebuild: Spark against the
 * service"). The child gets Spark's Java 17 options ({@link SparkCommand#JAVA_17_OPTIONS}) and the
 * bench module's compile classpath with the provided Spark, which the build writes to {@value
 * #CLASSPATH_FILE}; its log goes to a file, its result comes back as JSON on its standard output.
 */
final class SparkRebuildProcess {
    static final String CLASSPATH_FILE = "bench/target/spark-classpath.txt";
    /** The child's main class, by name: loading it here would need Spark. */
    static final String MAIN = "io.cassandragsi.repair.bench.SparkRebuildRun";
    static final String HEAP = "-Xmx3g";

    private SparkRebuildProcess() {}

    /** The child's command line: {@code java}, Spark's options and {@code jvmOptions}, the classpath, the main class and {@code args}. */
    static List<String> command(String java, String classpath, List<String> args, List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>(List.of(java, HEAP));
        cmd.addAll(SparkCommand.JAVA_17_OPTIONS);
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", classpath, MAIN));
        cmd.addAll(args);
        return cmd;
    }

    /** The bench classes' own location, then the build's classpath file under {@code home}. */
    static String classpath(Path home) throws IOException {
        Path file = home.resolve(CLASSPATH_FILE);
        if (!Files.isRegularFile(file)) {
            throw new CommandFailedException(file + " is missing: build the bench module (./gsi bench does, or mvn -o -DskipTests install -pl bench -am)");
        }
        String own;
        try {
            own = Path.of(BulkRun.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return own + File.pathSeparator + Files.readString(file, StandardCharsets.UTF_8).trim();
    }

    /** Runs the child with {@code args} and {@code jvmOptions}, its standard error appended to {@code log}; the runs it printed. */
    static List<BulkRun> run(Path home, List<String> args, List<String> jvmOptions, Path log) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder(command(java, classpath(home), args, jvmOptions)).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        List<String> json = out.lines().filter(l -> l.startsWith("{")).toList();
        if (code != 0 || json.isEmpty()) {
            throw new CommandFailedException("the Spark rebuild failed (exit " + code + "); see " + log);
        }
        ObjectMapper mapper = new ObjectMapper();
        List<BulkRun> runs = new ArrayList<>();
        for (String line : json) {
            runs.add(mapper.readValue(line, BulkRun.class));
        }
        return runs;
    }
}
