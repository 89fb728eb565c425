package io.cassandragsi.repair.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The spark-submit line {@code gsi spark ... --print} prints (docs/design.md section 9.5); no node, no Spark. */
class SparkCommandTest {
    @TempDir
    Path dir;

    private static String[] run(String... args) {
        GsiCommandTest.Run r = GsiCommandTest.run(args);
        return new String[] {String.valueOf(r.code()), r.out(), r.err()};
    }

    @Test
    void should_print_the_submit_line_with_the_connection_and_java_17_flags_when_print_is_given() {
        String[] r = run("spark", "check", "wiki.revisions", "by_length", "--fix", "--splits", "512", "--print", "--jar", "/opt/gsi-spark.jar",
                "--contact-point", "10.0.0.1:9142", "--contact-point", "10.0.0.2:9142");
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[1]).startsWith("spark-submit \\\n  --class io.cassandragsi.spark.GsiSpark")
                .contains("--conf spark.cassandra.connection.host=10.0.0.1,10.0.0.2")
                .contains("--conf spark.cassandra.connection.port=9142")
                .contains("--conf spark.cassandra.connection.localDC=datacenter1")
                .contains("--conf 'spark.driver.extraJavaOptions=-XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED")
                .contains("--conf 'spark.executor.extraJavaOptions=")
                .contains("/opt/gsi-spark.jar check wiki.revisions by_length --fix --splits 512 --project-keyspace gsi"
                        + " --read-consistency LOCAL_QUORUM --write-consistency LOCAL_QUORUM")
                .doesNotContain("auth");
    }

    @Test
    void should_refer_to_the_password_by_variable_when_the_config_has_credentials() throws IOException {
        Path cfg = dir.resolve("gsi.yaml");
        Files.writeString(cfg, """
                cassandra:
                  contact_points: [ "db1:9042" ]
                  local_datacenter: dc1
                  username: gsi_service
                  password: secret-not-printed
                """);
        String[] r = run("spark", "rebuild", "wiki.revisions", "--print", "--config", cfg.toString(), "--jar", "app.jar");
        assertThat(r[0]).as(r[2]).isEqualTo("0");
        assertThat(r[1]).contains("--conf spark.cassandra.auth.username=gsi_service")
                .contains("--conf \"spark.cassandra.auth.password=${GSI_CASSANDRA_PASSWORD}\"")
                .contains("spark.cassandra.connection.localDC=dc1")
                .doesNotContain("secret-not-printed");
    }

    @Test
    void should_fail_with_usage_code_when_print_is_missing_or_fix_is_given_to_rebuild() {
        String[] r = run("spark", "rebuild", "wiki.revisions", "by_length");
        assertThat(r[0]).isEqualTo(String.valueOf(GsiCommand.USAGE));
        assertThat(r[2]).contains("only prints the spark-submit line: add --print");
        r = run("spark", "rebuild", "wiki.revisions", "--fix", "--print");
        assertThat(r[0]).isEqualTo(String.valueOf(GsiCommand.USAGE));
        assertThat(r[2]).contains("--fix is an option of check");
        r = run("spark", "scan", "wiki.revisions", "--print");
        assertThat(r[0]).isEqualTo(String.valueOf(GsiCommand.USAGE));
    }

    @Test
    void should_name_the_table_argument_when_it_is_not_keyspace_dot_table() {
        String[] r = run("spark", "check", "revisions", "--print", "--jar", "app.jar");
        assertThat(r[0]).isEqualTo(String.valueOf(GsiCommand.FAILURE));
        assertThat(r[2]).contains("'revisions' is not KEYSPACE.TABLE");
    }
}
