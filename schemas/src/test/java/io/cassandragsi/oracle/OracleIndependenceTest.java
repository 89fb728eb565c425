package io.cassandragsi.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The oracles judge the project's code, so they share none of it (issue 24): the classes of this
 * package name nothing of the project but their own package and, where an oracle must read an
 * index definition, {@code io.cassandragsi.schema} (the definitions). {@link LwwTable} names
 * nothing of the project at all.
 */
class OracleIndependenceTest {
    private static final Path SOURCES = Path.of("src/test/java/io/cassandragsi/oracle");
    private static final Pattern PROJECT_NAME = Pattern.compile("io\\.cassandragsi\\.([a-z]+)");

    private static List<String> projectPackages(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        Matcher m = PROJECT_NAME.matcher(Files.readString(file));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void should_name_no_project_package_but_the_definitions_when_an_oracle_is_read() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(SOURCES)) {
            files = s.filter(p -> p.toString().endsWith(".java") && !p.getFileName().toString().endsWith("Test.java")).toList();
        }
        assertThat(files).as("the oracle sources under %s", SOURCES.toAbsolutePath()).isNotEmpty();
        for (Path f : files) {
            assertThat(projectPackages(f)).as("project packages %s names", f.getFileName()).allMatch(p -> p.equals("oracle") || p.equals("schema"));
        }
        assertThat(projectPackages(SOURCES.resolve("LwwTable.java"))).as("LwwTable").allMatch(p -> p.equals("oracle"));
    }
}
