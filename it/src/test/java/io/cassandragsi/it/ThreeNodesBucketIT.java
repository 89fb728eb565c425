package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.index.BucketRule;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.jobs.JobState;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Time buckets on three nodes at RF=3 (opt-in, {@code -Dgsi.it.threeNodes=true}; docs/design.md
 * sections 8.2 and 9.4): the history of {@link BucketIT} written at LOCAL_QUORUM, then, with node
 * 2 killed, {@code rebuild} seals every bucket and reads as of past moments and in windows (one
 * bucket, and several merged by unpaged {@code IN} selects) equal the oracle; and again once node 2
 * is back, when its replicas lack the seal's writes until hints or reads repair them.
 */
@EnabledIfSystemProperty(named = "gsi.it.threeNodes", matches = "true")
@DisabledIfSystemProperty(named = "gsi.it.maintenance", matches = "node|eventual")
class ThreeNodesBucketIT {
    private static final String KS = "it3_bucket";

    @Test
    void should_seal_and_read_buckets_exactly_while_a_node_is_killed_and_after_it_is_back() throws Exception {
        LocalCluster cluster = ThreeNodes.cluster();
        CqlSession session = ThreeNodes.session();
        long seed = RepairServiceIT.seed();
        System.out.println("ThreeNodesBucketIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        TableDef def = Definitions.parse(BucketReads.DEFINITION.formatted(KS), "ThreeNodesBucketIT");
        ThreeNodes.create(List.of(def));
        GsiConfig d = GsiConfig.defaults();
        GsiConfig config = new GsiConfig(d.cassandra(), d.consistency(), d.queue(), new HttpConfig("127.0.0.1", 0, null, false),
                d.antiEntropy().withEnabled(false));
        try (GsiServer server = new GsiServer(session, config)) {
            HistoryRun run = new HistoryRun(session, def, seed).warped(Instant.now().minus(Duration.ofDays(120)), BucketReads.STRETCH)
                    .withoutConditionalWrites();
            BucketReads reads = new BucketReads("ThreeNodesBucketIT", session, KS, run, server.reader(), seed);
            run.write(30, 600, 3);
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 180_000);
            System.out.println("ThreeNodesBucketIT converged: " + drift);
            drift.forEach((index, x) -> assertThat(x.clean()).as("seed %d index %s: %s", seed, index, x).isTrue());
            Thread.sleep(BucketRule.MARGIN.toMillis() + 500); // a seal is valid a margin after the history's last change

            cluster.kill(2);
            System.out.println("ThreeNodesBucketIT: node 2 killed (kill -9)");
            try {
                long t0 = System.nanoTime();
                JobState state = new Jobs(session, config).rebuild(KS, "revisions", null, RebuildOptions.defaults(), null).state();
                System.out.printf("ThreeNodesBucketIT: rebuild with its seals, node 2 down: %s in %.1f s%n", state, (System.nanoTime() - t0) / 1e9);
                assertThat(state).isEqualTo(JobState.DONE);
                reads.awaitSealed(Duration.ofSeconds(90));
                System.out.println("ThreeNodesBucketIT sealed: " + reads.validBuckets());
                assertThat(reads.allSealed()).as("every ended bucket with a row sealed with node 2 down: %s", reads.states()).isTrue();
                long bucketed = server.reader().bucketReads.sum();
                long merged = server.reader().mergedReads.sum();
                reads.readAndJudge("node 2 down", new Random(seed + 1));
                assertThat(server.reader().bucketReads.sum() - bucketed).as("reads through one bucket, node 2 down").isGreaterThan(20);
                assertThat(server.reader().mergedReads.sum() - merged).as("windows merged over several buckets, node 2 down").isGreaterThan(10);
            } finally {
                cluster.start(2);
                System.out.println("ThreeNodesBucketIT: node 2 back");
            }
            long merged = server.reader().mergedReads.sum();
            reads.readAndJudge("node 2 back", new Random(seed + 2));
            assertThat(server.reader().mergedReads.sum() - merged).as("windows merged over several buckets, node 2 back").isGreaterThan(10);
        }
    }
}
