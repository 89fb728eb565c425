package io.cassandragsi.repair.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The rebuild and check commands up to connecting; nothing listens at the contact point. */
class JobCommandsTest {
    private static final String NO_CLUSTER = "127.0.3.254:1";

    record Run(int code, String out, String err) {}

    private static Run run(Object command, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void should_exit_with_usage_code_when_arguments_are_missing_or_unknown() {
        assertThat(run(new CheckCommand()).code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run(new RebuildCommand(), "ks.t", "by_x", "--fixx").code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run(new RebuildCommand(), "ks.t", "by_x", "--parallelism", "x").code()).isEqualTo(CommandLine.ExitCode.USAGE);
    }

    @Test
    void should_fail_with_a_message_when_the_table_is_not_keyspace_dot_table() {
        Run r = run(new CheckCommand(), "revisions", "by_length");
        assertThat(r.code()).isEqualTo(CommandLine.ExitCode.SOFTWARE);
        assertThat(r.err()).contains("'revisions' is not KEYSPACE.TABLE");
    }

    @Test
    void should_fail_with_a_message_when_no_cluster_answers() {
        Run r = run(new RebuildCommand(), "ks.t", "by_x", "--contact-point", NO_CLUSTER, "--no-progress");
        assertThat(r.code()).isEqualTo(CommandLine.ExitCode.SOFTWARE);
        assertThat(r.err()).contains("cannot connect to Cassandra at " + NO_CLUSTER);
    }

    @Test
    void should_document_the_drift_exit_code_when_asked_for_help() {
        Run r = run(new CheckCommand(), "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("--fix").contains("3").contains("drift found");
    }
}
