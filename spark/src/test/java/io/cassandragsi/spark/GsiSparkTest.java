package io.cassandragsi.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import io.cassandragsi.repair.cli.CommandFailedException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The application's arguments (docs/design.md section 9.5); no Spark, no node. */
class GsiSparkTest {
    private static GsiSpark parse(String... args) {
        GsiSpark app = new GsiSpark();
        new CommandLine(app).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
        return app;
    }

    @Test
    void should_read_the_job_when_the_arguments_are_those_gsi_spark_prints() {
        SparkJobs.Spec spec = parse("check", "wiki.revisions", "by_length", "--fix", "--splits", "512", "--project-keyspace", "gsi2",
                "--read-consistency", "QUORUM", "--write-consistency", "LOCAL_QUORUM", "--rows-per-second", "2000").spec();
        assertThat(spec).isEqualTo(new SparkJobs.Spec("wiki", "revisions", "by_length", "gsi2", DefaultConsistencyLevel.QUORUM,
                DefaultConsistencyLevel.LOCAL_QUORUM, 512, 256, 1000, 2000));
        assertThat(parse("rebuild", "app.users").spec()).isEqualTo(SparkJobs.Spec.of("app", "users", null));
    }

    @Test
    void should_name_the_problem_when_the_arguments_are_wrong() {
        assertThatThrownBy(() -> parse("rebuild", "app.users", "--fix").spec()).hasMessageContaining("--fix is an option of check");
        assertThatThrownBy(() -> parse("check", "users").spec()).isInstanceOf(CommandFailedException.class)
                .hasMessageContaining("'users' is not KEYSPACE.TABLE");
        assertThatThrownBy(() -> parse("check", "app.users", "--splits", "70000").spec()).hasMessageContaining("--splits must be from 1 to 65536");
        assertThatThrownBy(() -> parse("check", "app.users", "--rows-per-second", "-1").spec()).hasMessageContaining("--rows-per-second");
        assertThatThrownBy(() -> parse("scan", "app.users")).isInstanceOf(CommandLine.ParameterException.class);
    }
}
