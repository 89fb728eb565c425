package io.cassandragsi.repair.service;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.jobs.CdcRepair;
import io.cassandragsi.repair.jobs.CheckOptions;
import io.cassandragsi.repair.jobs.NodeRanges;
import io.cassandragsi.repair.jobs.RangeJobs;
import io.cassandragsi.repair.jobs.TokenRange;
import io.cassandragsi.repair.jobs.TokenRanges;
import io.cassandragsi.repair.queue.QueueConsumer;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.NodeProgressTable;
import io.cassandragsi.schema.Indexing;
import java.util.List;

/**
 * What the targeted repair of lost CDC segments ({@link CdcRepair}, docs/design.md section 7.11)
 * runs on in the service: the progress records the consumer reads, the ownership of their epochs,
 * the catalog's tables in eventual indexing, a {@code check --fix} at full pace through {@link
 * RangeJobs}, and the acknowledgment in the progress table.
 */
final class CdcRepairHost implements CdcRepair.Host {
    /** The second pass (index to base) walks the whole index in this many ranges, each tried again alone. */
    private static final int INDEX_SPLITS = 16;

    private final CqlSession session;
    private final GsiConfig config;
    private final Catalog catalog;
    private final QueueConsumer consumer;
    private final NodeProgressTable progress;

    CdcRepairHost(CqlSession session, GsiConfig config, Catalog catalog, QueueConsumer consumer, NodeProgressTable progress) {
        this.session = session;
        this.config = config;
        this.catalog = catalog;
        this.consumer = consumer;
        this.progress = progress;
    }

    @Override
    public List<NodeProgressTable.Epoch> epochs() {
        return consumer.nodeEpochs();
    }

    @Override
    public boolean owns(int epochShard) {
        return consumer.ownsEpoch(epochShard);
    }

    @Override
    public List<String> eventualTables() {
        return catalog.tables().values().stream().filter(t -> t.definition.indexing() == Indexing.EVENTUAL)
                .map(t -> t.definition.keyspace() + "." + t.definition.table()).sorted().toList();
    }

    @Override
    public void check(String table, String node) throws InterruptedException {
        int dot = table.indexOf('.');
        String keyspace = table.substring(0, dot);
        // full pace: no RangeJobs.paced (anti-entropy's 200 rows/s would make this the 40-hour round it replaces)
        RangeJobs jobs = RangeJobs.open(session, config.projectKeyspace(), config.consistency(), keyspace, table.substring(dot + 1), "*");
        CheckOptions fix = CheckOptions.defaults().withFix(true);
        // a lost segment held only mutations the node applied as a replica: their rows are in its ranges
        for (TokenRange r : NodeRanges.of(session, keyspace, node)) {
            jobs.check(r, fix, RangeJobs.Passes.BASE_TO_INDEX);
        }
        // an entry left behind by a lost write sits in the partition of its old index key, anywhere in the index
        for (TokenRange r : TokenRanges.split(INDEX_SPLITS)) {
            jobs.check(r, fix, RangeJobs.Passes.INDEX_TO_BASE);
        }
    }

    @Override
    public void acknowledge(int epochShard, String covered) {
        progress.cdcRepaired(epochShard, covered, config.consistency().write());
    }
}
