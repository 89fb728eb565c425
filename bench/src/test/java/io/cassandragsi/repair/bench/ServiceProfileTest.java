package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceProfileTest {
    @Test
    void should_name_the_library_of_a_frame_with_the_driver_s_shaded_netty_counted_as_netty() {
        assertThat(ServiceProfile.codeOf("io.cassandragsi.repair.queue.Repairer.repair")).isEqualTo("ours");
        assertThat(ServiceProfile.codeOf("com.datastax.oss.driver.shaded.netty.channel.nio.NioEventLoop.run")).isEqualTo("netty");
        assertThat(ServiceProfile.codeOf("com.datastax.oss.driver.internal.core.cql.CqlRequestHandler.onResponse")).isEqualTo("driver");
        assertThat(ServiceProfile.codeOf("java.util.HashMap.get")).isEqualTo("jdk");
        assertThat(ServiceProfile.codeOf("org.apache.cassandra.db.Memtable.put")).isEqualTo("cassandra");
        assertThat(ServiceProfile.codeOf("org.xnio.nio.WorkerThread.run")).isEqualTo("undertow");
        assertThat(ServiceProfile.codeOf("")).isEqualTo("(no stack)");
    }

    @Test
    void should_pool_threads_by_name_and_count_each_method_of_ours_once_per_stack() {
        assertThat(ServiceProfile.poolOf("s0-io-3")).isEqualTo("s0-io-N");
        assertThat(ServiceProfile.ours(List.of("java.util.HashMap.get", "io.cassandragsi.repair.queue.Repairer.diff",
                "io.cassandragsi.repair.queue.Repairer.diff", "io.cassandragsi.index.TablePlan.diff")))
                .containsExactly("queue.Repairer.diff", "index.TablePlan.diff");
        assertThat(ServiceProfile.nodePaths(List.of("org.apache.cassandra.db.Memtable.put", "org.apache.cassandra.service.StorageProxy.mutate",
                "org.apache.cassandra.cql3.statements.BatchStatement.execute", "io.cassandragsi.trigger.IndexTrigger.augment")))
                .containsExactly("StorageProxy.mutate", "BatchStatement.execute", "trigger.IndexTrigger.augment");
    }

    @Test
    void should_print_shares_and_microseconds_per_marker_largest_first() {
        ServiceProfile.Tally t = new ServiceProfile.Tally(4, Map.of("driver", 3L, "ours", 1L), Map.of("s0-io-N", 4L), Map.of());
        String text = ServiceProfile.format("Service CPU profile", t, 100, 5);
        assertThat(text).contains("samples: 4", "100 us per marker");
        assertThat(text.indexOf("driver")).isLessThan(text.indexOf("ours"));
        assertThat(text).contains(" 75.0%   75.0 us  driver");
    }
}
