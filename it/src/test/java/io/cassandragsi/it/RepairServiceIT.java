package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.schema.TableDef;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Randomized histories by concurrent writers on a real node, with the repair service consuming
 * the trigger's markers in-process: after the backlog drains, every index must equal the oracle
 * (zero missing, orphan, wrong _tid, wrong _deleted). The seed is printed; replay with
 * -Dgsi.seed=N.
 */
class RepairServiceIT {

    static long seed() {
        String s = System.getProperty("gsi.seed", "");
        return s.isBlank() ? System.nanoTime() : Long.parseLong(s.trim());
    }

    static Map<String, HistoryRun.Drift> awaitConverged(HistoryRun run, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        Map<String, HistoryRun.Drift> drift;
        while (true) {
            drift = new LinkedHashMap<>();
            boolean clean = true;
            for (IndexPlan index : run.plan.indexes()) {
                HistoryRun.Drift d = run.compare(index);
                drift.put(index.index().name(), d);
                clean &= d.clean();
            }
            if (clean || System.currentTimeMillis() > deadline) {
                return drift;
            }
            Thread.sleep(500);
        }
    }

    @Test
    void should_equal_the_oracle_when_concurrent_writers_write_random_histories() throws Exception {
        CqlSession session = SharedCluster.session();
        for (int round = 0; round < 3; round++) {
            long seed = seed() + round;
            String ks = "it_repair_" + round;
            TableDef def = SharedCluster.example("revisions", ks);
            SharedCluster.apply(def);
            System.out.println("RepairServiceIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
            try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
                HistoryRun run = new HistoryRun(session, def, seed);
                long t0 = System.nanoTime();
                run.write(40, 1500, 4);
                long wrote = System.nanoTime();
                Map<String, HistoryRun.Drift> drift = awaitConverged(run, 90_000);
                System.out.printf("seed %d: wrote 1500 versions in %.1f s, converged %.1f s later: %s; service %s%n", seed,
                        (wrote - t0) / 1e9, (System.nanoTime() - wrote) / 1e9, drift, service.status());
                for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                    assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
                }
            }
        }
    }
}
