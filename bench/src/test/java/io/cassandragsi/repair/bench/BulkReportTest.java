package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The arithmetic and the lines of {@code bench bulk}'s figures, on made-up runs. */
class BulkReportTest {
    /** 100k rows in 20 s on 2 cores, the job 10 s of CPU, the node 30 s. */
    private static final BulkRun SERVICE = new BulkRun("service", 100_000, 190_000, 20, 2, 10_000_000_000L, 30_000_000_000L, 2);

    @Test
    void should_derive_the_rates_and_the_cpu_per_row() {
        assertThat(SERVICE.rowsPerSecond()).isEqualTo(5000);
        assertThat(SERVICE.rowsPerSecondPerCore()).isEqualTo(2500);
        assertThat(SERVICE.jobMicrosPerRow()).isEqualTo(100);
        assertThat(SERVICE.nodeMicrosPerRow()).isEqualTo(300);
        assertThat(SERVICE.rowsPerJobCoreSecond()).isEqualTo(10_000);
    }

    @Test
    void should_size_a_billion_rows_in_core_hours() {
        // 100 us per row: 1e9 rows are 1e5 CPU-seconds
        assertThat(BulkRun.coreHours(100, BulkRun.BILLION)).isCloseTo(1e5 / 3600, within(1e-9));
        assertThat(BulkRun.coreHoursAtRate(2500, BulkRun.BILLION)).isCloseTo(4e5 / 3600, within(1e-9));
        assertThat(BulkRun.coreHoursAtRate(0, BulkRun.BILLION)).isNaN();
    }

    @Test
    void should_leave_unknown_cpu_unknown() {
        BulkRun r = new BulkRun("spark", 10, 10, 1, 2, -1, -1, Double.NaN);
        assertThat(r.jobMicrosPerRow()).isNaN();
        assertThat(r.nodeMicrosPerRow()).isNaN();
        assertThat(r.rowsPerJobCoreSecond()).isNaN();
        assertThat(BulkRun.ratio(1, Double.NaN)).isNaN();
        assertThat(BulkRun.ratio(1, 0)).isNaN();
    }

    @Test
    void should_reject_a_run_without_cores() {
        assertThatThrownBy(() -> new BulkRun("spark", 10, 10, 1, 0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_print_the_ratio_per_core_the_flatness_and_the_sizing() {
        BulkRun spark = new BulkRun("spark", 100_000, 190_000, 10, 2, 10_000_000_000L, 30_000_000_000L, 2);
        BulkRun service2 = new BulkRun("service", 1_000_000, 1_900_000, 200, 2, 100_000_000_000L, 330_000_000_000L, 2);
        BulkRun spark2 = new BulkRun("spark", 1_000_000, 1_900_000, 100, 2, 100_000_000_000L, 300_000_000_000L, 2);
        String text = BulkReport.format(List.of(new BulkReport.Size(100_000, SERVICE, spark, null), new BulkReport.Size(1_000_000, service2, spark2, null)));
        assertThat(text).contains("100000    spark/service per core: 2.00 (rows/s per core), 1.00 (rows per job CPU-second)");
        assertThat(text).contains("cost per row from 100000 to 1000000 rows (1.00 = flat):");
        assertThat(text).contains("service    node CPU per row x1.10, job CPU per row x1.00, seconds per row x1.00");
        assertThat(text).contains("Spark      node CPU per row x1.00, job CPU per row x1.00, seconds per row x1.00");
        assertThat(text).contains("one executor core (Spark, 1000000 rows): 10000 rows per second of its CPU; here, sharing 2 cores with the node,"
                + " 5000 rows/s per core");
        assertThat(text).contains("a billion rows: 27.8 executor core-hours of CPU and 83.3 Cassandra core-hours");
        assertThat(text).contains("55.6 core-hours at this machine's rate per core");
    }

    @Test
    void should_compare_spark_with_other_settings_when_measured() {
        BulkRun spark = new BulkRun("spark", 100_000, 190_000, 40, 2, 20_000_000_000L, 30_000_000_000L, 2);
        BulkRun other = new BulkRun("spark-conf", 100_000, 190_000, 20, 2, 10_000_000_000L, 30_000_000_000L, 2);
        String text = BulkReport.format(List.of(new BulkReport.Size(100_000, SERVICE, spark, other)));
        assertThat(text).contains("100000    spark/service per core: 0.50").contains("100000    spark-conf/service per core: 1.00");
        assertThat(text).contains("one executor core (Spark, 100000 rows): 5000 rows per second of its CPU");
    }
}
