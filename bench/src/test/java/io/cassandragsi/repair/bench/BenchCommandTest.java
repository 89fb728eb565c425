package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Option handling of {@code bench write}; every case here fails or stops before a node would start. */
class BenchCommandTest {
    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new BenchCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return new Run(cl.execute(args), out.toString(), err.toString());
    }

    private static WriteOptions.Settings settings(String... args) {
        BenchWriteCommand cmd = new BenchWriteCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd.o.settings();
    }

    @Test
    void should_exit_with_usage_code_when_the_subcommand_is_missing() {
        Run r = run();
        assertThat(r.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(r.err()).contains("missing command: bench write");
    }

    @Test
    void should_exit_with_usage_code_and_list_the_variants_when_one_is_unknown() {
        Run r = run("write", "--variants", "unindexed,gsi-2");
        assertThat(r.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(r.err()).contains("--variants: unknown variant 'gsi-2'").contains("logged-batch");
    }

    @Test
    void should_reject_a_round_count_of_zero() {
        Run r = run("write", "--rounds", "0");
        assertThat(r.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(r.err()).contains("--rounds must be at least 1, got 0");
    }

    @Test
    void should_say_how_long_it_takes_in_the_help() {
        Run r = run("write", "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out().replaceAll("\\s+", " ")).contains("about 75 minutes").contains("--quick about 18 minutes");
    }

    @Test
    void should_use_short_phases_when_quick_unless_told_otherwise() {
        WriteOptions.Settings quick = settings("--quick");
        assertThat(quick.phaseSeconds()).isEqualTo(10);
        assertThat(quick.rounds()).isEqualTo(2);
        assertThat(quick.warmupSeconds()).isEqualTo(10);
        assertThat(quick.variants()).isEqualTo(Variant.defaults());
        assertThat(quick.estimate().toMinutes()).isBetween(15L, 20L);

        WriteOptions.Settings mixed = settings("--quick", "--rounds", "4", "--variants", "mv,unindexed");
        assertThat(mixed.rounds()).isEqualTo(4);
        assertThat(mixed.phaseSeconds()).isEqualTo(10);
        assertThat(mixed.variants()).containsExactly(Variant.MV, Variant.UNINDEXED);

        WriteOptions.Settings full = settings();
        assertThat(full.phaseSeconds()).isEqualTo(45);
        assertThat(full.rounds()).isEqualTo(3);
        assertThat(full.estimate().toMinutes()).isBetween(65L, 80L);
    }
}
