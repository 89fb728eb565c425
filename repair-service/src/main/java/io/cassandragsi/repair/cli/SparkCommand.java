package io.cassandragsi.repair.cli;

import io.cassandragsi.repair.config.CassandraConfig;
import io.cassandragsi.repair.config.ContactPoint;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.TlsConfig;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gsi spark rebuild|check KEYSPACE.TABLE [INDEX] [--fix] --print}: the {@code spark-submit}
 * line of the same job on a Spark cluster (docs/design.md section 9.5), with the connection of the
 * config file. It only prints: the line runs where the cluster's Spark is.
 */
@Command(name = "spark", mixinStandardHelpOptions = true,
        description = {"Print the spark-submit line that runs rebuild or check of an index on a Spark cluster (the spark module's"
                + " application jar, with the spark-cassandra-connector), for tables too large for the service's own jobs.",
            "Passwords are not printed: the line reads them from GSI_CASSANDRA_PASSWORD, GSI_TRUSTSTORE_PASSWORD and"
                    + " GSI_KEYSTORE_PASSWORD."})
public final class SparkCommand implements Callable<Integer> {
    /** The application's main class in the spark module's jar. */
    public static final String MAIN_CLASS = "io.cassandragsi.spark.GsiSpark";
    /** The application jar's file name. */
    public static final String JAR = "gsi-spark.jar";
    /** What Spark 3.5 itself passes to a Java 17 JVM (its launcher's {@code JavaModuleOptions}). */
    public static final List<String> JAVA_17_OPTIONS = List.of("-XX:+IgnoreUnrecognizedVMOptions",
            "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
            "--add-opens=java.base/sun.security.action=ALL-UNNAMED", "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
            "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED", "-Djdk.reflect.useDirectMethodHandle=false");

    @Mixin
    SparkJobArgs job;

    @Option(names = "--print", description = "Print the spark-submit line (required: this command only prints).")
    boolean print;

    @Option(names = "--master", paramLabel = "URL", description = "spark-submit's --master (default: the Spark installation's own).")
    String master;

    @Option(names = "--jar", paramLabel = "FILE", description = "The application jar (default: spark/target/" + JAR + " of the checkout"
            + " ./gsi runs from, or " + JAR + " in the release's lib/ or beside gsi.jar).")
    Path jar;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (!print) {
            throw new CommandLine.ParameterException(spec.commandLine(), "gsi spark only prints the spark-submit line: add --print"
                    + " and run the line where the Spark cluster's spark-submit is");
        }
        try {
            job.target();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        Path jarFile = jar == null ? defaultJar() : jar;
        PrintWriter out = spec.commandLine().getOut();
        out.println(render(line(connection.load(), jarFile)));
        if (!Files.isRegularFile(jarFile)) {
            spec.commandLine().getErr().println("note: " + jarFile + " does not exist here: build it with mvn -B -pl spark -am package -DskipTests"
                    + " and copy it where spark-submit runs");
        }
        out.flush();
        return CommandLine.ExitCode.OK;
    }

    /** The spark-submit arguments, one option with its value per element. */
    List<List<String>> line(GsiConfig config, Path jarFile) {
        CassandraConfig c = config.cassandra();
        List<List<String>> line = new ArrayList<>();
        line.add(List.of("spark-submit"));
        if (master != null) {
            line.add(List.of("--master", master));
        }
        line.add(List.of("--class", MAIN_CLASS));
        line.add(List.of("--name", job.describe()));
        line.add(conf("spark.cassandra.connection.host", c.contactPoints().stream().map(ContactPoint::host).collect(Collectors.joining(","))));
        line.add(conf("spark.cassandra.connection.port", String.valueOf(port(c))));
        line.add(conf("spark.cassandra.connection.localDC", c.localDatacenter()));
        if (c.username() != null) {
            line.add(conf("spark.cassandra.auth.username", c.username()));
            line.add(conf("spark.cassandra.auth.password", "${GSI_CASSANDRA_PASSWORD}"));
        }
        TlsConfig tls = c.tls();
        if (tls != null && tls.enabled()) {
            line.add(conf("spark.cassandra.connection.ssl.enabled", "true"));
            if (tls.truststorePath() != null) {
                line.add(conf("spark.cassandra.connection.ssl.trustStore.path", tls.truststorePath().toString()));
                line.add(conf("spark.cassandra.connection.ssl.trustStore.password", "${GSI_TRUSTSTORE_PASSWORD}"));
            }
            if (tls.keystorePath() != null) {
                line.add(conf("spark.cassandra.connection.ssl.clientAuth.enabled", "true"));
                line.add(conf("spark.cassandra.connection.ssl.keyStore.path", tls.keystorePath().toString()));
                line.add(conf("spark.cassandra.connection.ssl.keyStore.password", "${GSI_KEYSTORE_PASSWORD}"));
            }
        }
        String javaOptions = String.join(" ", JAVA_17_OPTIONS);
        line.add(conf("spark.driver.extraJavaOptions", javaOptions));
        line.add(conf("spark.executor.extraJavaOptions", javaOptions));
        List<String> app = new ArrayList<>(List.of(jarFile.toString()));
        app.addAll(job.toArgs());
        app.addAll(List.of("--project-keyspace", config.projectKeyspace(), "--read-consistency", config.consistency().read().name(),
                "--write-consistency", config.consistency().write().name()));
        line.add(app);
        return line;
    }

    private static List<String> conf(String key, String value) {
        return List.of("--conf", key + "=" + value);
    }

    /** The connector takes one port for every host. */
    private static int port(CassandraConfig c) {
        List<Integer> ports = c.contactPoints().stream().map(ContactPoint::port).distinct().toList();
        if (ports.size() != 1) {
            throw new IllegalArgumentException("the spark-cassandra-connector takes one CQL port for every host; the contact points use " + ports);
        }
        return ports.get(0);
    }

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=,@+%-]+");

    /** Shell words, an option and its value per line; a {@code ${VAR}} is left for the shell to expand. */
    static String render(List<List<String>> line) {
        List<String> rows = new ArrayList<>();
        for (List<String> words : line) {
            rows.add(words.stream().map(SparkCommand::quote).collect(Collectors.joining(" ")));
        }
        return String.join(" \\\n  ", rows);
    }

    static String quote(String word) {
        if (PLAIN.matcher(word).matches()) {
            return word;
        }
        if (word.matches("[A-Za-z0-9_.=-]*\\$\\{[A-Z_]+\\}")) {
            return "\"" + word + "\"";
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /**
     * The first that exists of: spark/target/gsi-spark.jar and lib/gsi-spark.jar under gsi.home (the
     * checkout or the release the ./gsi launcher runs from), gsi-spark.jar beside the running jar;
     * else the first of them.
     */
    static Path defaultJar() {
        List<Path> candidates = new ArrayList<>();
        String home = System.getProperty("gsi.home");
        if (home != null) {
            Path root = Path.of(home).toAbsolutePath().normalize();
            candidates.add(root.resolve("spark").resolve("target").resolve(JAR));
            candidates.add(root.resolve("lib").resolve(JAR));
        }
        try {
            Path self = Path.of(SparkCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
            candidates.add((Files.isDirectory(self) ? self : self.getParent()).resolve(JAR));
        } catch (URISyntaxException | RuntimeException e) {
            candidates.add(Path.of(JAR).toAbsolutePath());
        }
        return candidates.stream().filter(Files::isRegularFile).findFirst().orElse(candidates.get(0));
    }
}
