package io.cassandragsi.repair.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CqlScriptTest {
    @Test
    void should_split_at_the_semicolons_that_end_statements() {
        assertThat(CqlScript.split("INSERT INTO t (k) VALUES (1); SELECT * FROM t;\n"))
                .containsExactly("INSERT INTO t (k) VALUES (1)", "SELECT * FROM t");
        assertThat(CqlScript.split("SELECT * FROM t")).containsExactly("SELECT * FROM t");
    }

    @Test
    void should_keep_semicolons_inside_strings_identifiers_and_dollar_strings() {
        assertThat(CqlScript.split("INSERT INTO t (k, v) VALUES ('a;b', 'it''s; fine'); SELECT \"we;ird\" FROM t"))
                .containsExactly("INSERT INTO t (k, v) VALUES ('a;b', 'it''s; fine')", "SELECT \"we;ird\" FROM t");
        assertThat(CqlScript.split("INSERT INTO t (k, v) VALUES (1, $$x;y$$);")).containsExactly("INSERT INTO t (k, v) VALUES (1, $$x;y$$)");
    }

    @Test
    void should_drop_comments_and_blank_statements() {
        assertThat(CqlScript.split("-- a comment; still a comment\nSELECT 1 FROM t; ;; // another;\n/* block; */ SELECT 2 FROM t"))
                .containsExactly("SELECT 1 FROM t", "SELECT 2 FROM t");
        assertThat(CqlScript.split("  ;\n-- nothing\n")).isEmpty();
    }

    @Test
    void should_name_what_is_not_closed() {
        assertThatThrownBy(() -> CqlScript.split("SELECT 'oops FROM t")).hasMessageContaining("a string that starts at character 8");
        assertThatThrownBy(() -> CqlScript.split("SELECT \"oops FROM t")).hasMessageContaining("quoted identifier");
        assertThatThrownBy(() -> CqlScript.split("SELECT /* oops")).hasMessageContaining("comment");
    }
}
