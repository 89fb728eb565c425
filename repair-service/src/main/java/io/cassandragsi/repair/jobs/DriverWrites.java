package io.cassandragsi.repair.jobs;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.maintain.RowsWrite;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import java.util.List;

/** A job's writes as statements of the table's classes, through a job's share of the process's {@link IndexWriter}. */
final class DriverWrites implements JobWrites {
    private static final Object GROUP = new Object();
    private final Catalog.Indexed table;
    private final IndexWriter writer;
    private final ConsistencyLevel write;

    DriverWrites(Catalog.Indexed table, IndexWriter writer, ConsistencyLevel write) {
        this.table = table;
        this.writer = writer;
        this.write = write;
    }

    @Override
    public Round round() {
        IndexWriter.Round<Object> round = writer.round(InFlight.ATTEMPTS);
        return new Round() {
            @Override
            public void send(List<TablePlan.IndexWrite> index, List<RowsWrite> rows) throws InterruptedException {
                for (Statement<?> st : table.statements(index, write)) {
                    round.send(st, GROUP);
                }
                for (Statement<?> st : table.rowsStatements(rows, write)) {
                    round.send(st, GROUP);
                }
            }

            @Override
            public void check() throws InterruptedException {
                if (!round.failures().isEmpty()) {
                    InFlight.await(round); // throws
                }
            }

            @Override
            public void await() throws InterruptedException {
                InFlight.await(round);
            }
        };
    }

    @Override
    public long retries() {
        return writer.retries();
    }
}
