package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Option handling of {@code bench bulk} and the child JVM's command line; nothing here starts a node. */
class BenchBulkCommandTest {
    private static BenchBulkCommand parse(String... args) {
        BenchBulkCommand cmd = new BenchBulkCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    @Test
    void should_measure_100k_and_1m_rows_by_default_and_20k_and_100k_when_quick() {
        assertThat(parse().sizes()).containsExactly(100_000L, 1_000_000L);
        assertThat(parse("--quick").sizes()).containsExactly(20_000L, 100_000L);
        assertThat(parse("--quick", "--rows", "5000,7000,9000").sizes()).containsExactly(5000L, 7000L, 9000L);
    }

    @Test
    void should_reject_sizes_that_are_not_ascending() {
        assertThatThrownBy(() -> parse("--rows", "1000,1000").sizes()).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--rows must be positive and ascending, not [1000, 1000]");
        assertThatThrownBy(() -> parse("--rows", "0").sizes()).isInstanceOf(CommandLine.ParameterException.class);
    }

    @Test
    void should_be_a_bench_subcommand() {
        assertThat(new CommandLine(new BenchCommand()).getSubcommands()).containsKey("bulk");
    }

    @Test
    void should_start_the_child_with_spark_java_17_options_and_its_main_class() {
        List<String> cmd = SparkRebuildProcess.command("java", "a.jar:b.jar", List.of("ks", "t"), List.of("-Dx=1"));
        assertThat(cmd.get(0)).isEqualTo("java");
        assertThat(cmd).contains("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "-Dx=1");
        assertThat(cmd.subList(cmd.size() - 5, cmd.size())).containsExactly("-cp", "a.jar:b.jar", SparkRebuildProcess.MAIN, "ks", "t");
    }
}
