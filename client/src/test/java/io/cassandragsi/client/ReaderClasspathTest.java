package io.cassandragsi.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The client's dependencies leave out what only the service and the command line use (client/pom.xml):
 * this test's classpath is the client's, so every class the client can reach, through the repair
 * service's and the schemas' classes, must be on it. {@code jdeps} lists each class's references; the
 * test follows them from the client's classes and fails on any that no jar of the classpath holds.
 */
class ReaderClasspathTest {
    private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s+(.*)$");

    @Test
    void should_leave_the_service_only_libraries_out_of_the_client_classpath() {
        for (String name : List.of("io.undertow.Undertow", "picocli.CommandLine", "me.tongfei.progressbar.ProgressBar",
                "io.micrometer.prometheus.PrometheusMeterRegistry", "com.fasterxml.jackson.dataformat.yaml.YAMLFactory",
                "io.cassandragsi.conf.LocalCluster", "ch.qos.logback.classic.Logger")) {
            assertThat(loadable(name)).as(name + " on the client's classpath").isFalse();
        }
    }

    @Test
    void should_reach_only_classes_the_client_classpath_holds() {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> analyzed = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            String n = new File(entry).getName();
            boolean project = entry.replace('\\', '/').matches(".*/(client|repair-service|schemas)/target/classes/?")
                    || n.startsWith("cassandra-gsi-repair-service-") || n.startsWith("cassandra-gsi-schemas-");
            if (project && !n.contains("tests")) {
                analyzed.add(entry);
            }
        }
        assertThat(analyzed).as("the client's, the repair service's and the schemas' classes on " + classpath).hasSize(3);
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
        StringWriter out = new StringWriter();
        List<String> args = new ArrayList<>(Arrays.asList("--multi-release", "17", "-verbose:class", "-filter:none", "-cp", classpath));
        args.addAll(analyzed);
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(new StringWriter()), args.toArray(String[]::new));
        assertThat(rc).as("jdeps exit code").isZero();
        Map<String, Set<String>> edges = new HashMap<>();
        Set<String> missing = new HashSet<>();
        for (String line : out.toString().split("\n")) {
            Matcher m = EDGE.matcher(line);
            if (m.matches()) {
                edges.computeIfAbsent(m.group(1), k -> new HashSet<>()).add(m.group(2));
                if (m.group(3).contains("not found")) {
                    missing.add(m.group(2));
                }
            }
        }
        Set<String> reached = new HashSet<>();
        Deque<String> todo = new ArrayDeque<>();
        edges.keySet().stream().filter(c -> c.startsWith("io.cassandragsi.client.")).forEach(todo::add);
        assertThat(todo).as("the client's classes in jdeps' answer").isNotEmpty();
        Set<String> unreachable = new TreeSet<>();
        while (!todo.isEmpty()) {
            String c = todo.pop();
            if (reached.add(c)) {
                if (missing.contains(c)) {
                    unreachable.add(c);
                }
                todo.addAll(edges.getOrDefault(c, Set.of()));
            }
        }
        assertThat(reached).as("classes the client reaches").contains("io.cassandragsi.repair.read.IndexReader",
                "io.cassandragsi.repair.store.Catalog");
        assertThat(unreachable).as("classes the client reaches that its classpath lacks").isEmpty();
    }

    private static boolean loadable(String name) {
        try {
            Class.forName(name, false, ReaderClasspathTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
