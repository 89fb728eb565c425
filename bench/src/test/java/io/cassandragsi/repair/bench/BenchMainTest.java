package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.cli.GsiCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code gsi bench ...} as {@code ./gsi} runs it: the product's command line with {@code bench} added. */
class BenchMainTest {
    private record Run(int code, String out, String err) {}

    @TempDir
    Path home;

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = BenchMain.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return new Run(cl.execute(args), out.toString(), err.toString());
    }

    @Test
    void should_list_bench_beside_the_product_commands_when_asked_for_help() {
        Run r = run("--help");
        assertThat(r.code()).isEqualTo(GsiCommand.OK);
        assertThat(r.out()).contains("bench").contains("schema").contains("serve").contains("rebuild");
    }

    @Test
    void should_list_the_three_benchmarks_when_asked_for_bench_help() {
        Run r = run("bench", "--help");
        assertThat(r.code()).isEqualTo(GsiCommand.OK);
        assertThat(r.out()).contains("write").contains("read").contains("repair");
    }

    @Test
    void should_exit_with_usage_code_when_a_bench_option_is_wrong() {
        Run r = run("bench", "write", "--rounds", "0");
        assertThat(r.code()).isEqualTo(GsiCommand.USAGE);
        assertThat(r.err()).contains("--rounds must be at least 1, got 0");
    }

    @Test
    void should_print_one_error_line_and_exit_1_when_a_benchmark_fails() {
        String before = System.getProperty("gsi.home");
        System.setProperty("gsi.home", home.toString());
        try {
            Run r = run("bench", "write", "--quick");
            assertThat(r.code()).isEqualTo(GsiCommand.FAILURE);
            assertThat(r.err().strip()).startsWith("error: trigger jar not found: ").doesNotContain("\n").doesNotContain("Exception");
        } finally {
            if (before == null) {
                System.clearProperty("gsi.home");
            } else {
                System.setProperty("gsi.home", before);
            }
        }
    }
}
