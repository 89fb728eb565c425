package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.schema.ProjectTables;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.QueueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class BenchNodeTest {
    @Test
    void should_make_every_table_of_the_project_keyspace_that_the_service_and_the_jobs_need() {
        // bench read and bench repair run the service in-process; it creates no table of its own
        var statements = BenchNode.statements(Definitions.read(Path.of("../schemas/examples/revisions.json")), 1);
        for (ProjectTables.Table t : ProjectTables.all(BenchSchema.PROJECT_KEYSPACE, QueueLayout.Settings.defaults())) {
            assertThat(statements).as("the %s", t.what()).anyMatch(cql -> cql.contains(io.cassandragsi.schema.Cql.qualified(BenchSchema.PROJECT_KEYSPACE, t.name())));
        }
    }
}
