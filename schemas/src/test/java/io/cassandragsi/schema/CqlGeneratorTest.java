package io.cassandragsi.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Golden-file tests: the CQL generated for each example definition must equal the committed file in
 * src/test/resources/golden. To accept an intended change, run with -Dgolden.update=true and review
 * the diff.
 */
class CqlGeneratorTest {

    static String render(TableDef def) {
        return CqlGenerator.all(def, "gsi", "{'class': 'SimpleStrategy', 'replication_factor': 1}").stream()
                .map(s -> "-- " + s.purpose() + "\n" + s.cql())
                .collect(Collectors.joining("\n\n")) + "\n";
    }

    @ParameterizedTest
    @ValueSource(strings = {"revisions", "orders", "users"})
    void should_generate_the_golden_cql_when_given_an_example(String name) throws IOException {
        TableDef def = Definitions.read(Path.of("examples", name + ".json"));
        String actual = render(def);
        Path golden = Path.of("src/test/resources/golden", name + ".cql");
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
        }
        assertThat(actual).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"revisions", "orders", "users"})
    void should_read_back_the_definition_when_parsing_an_index_comment(String name) {
        TableDef def = Definitions.read(Path.of("examples", name + ".json"));
        for (Index index : def.indexes().values()) {
            CqlGenerator.IndexComment parsed = CqlGenerator.parseIndexComment(CqlGenerator.indexComment(def, index), "test");
            assertThat(parsed.table()).isEqualTo(def.table());
            assertThat(parsed.index()).isEqualTo(index.name());
            assertThat(Definitions.toJson(parsed.definition())).isEqualTo(Definitions.toJson(def));
        }
    }
}
