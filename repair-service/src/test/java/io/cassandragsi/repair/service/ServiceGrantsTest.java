package io.cassandragsi.repair.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.service.ServiceGrants.Grant;
import io.cassandragsi.repair.service.ServiceGrants.IndexedTable;
import io.cassandragsi.repair.service.ServiceGrants.Level;
import io.cassandragsi.repair.service.ServiceGrants.Resource;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ServiceGrantsTest {
    private static final IndexedTable REVISIONS = new IndexedTable("wiki", "revisions", List.of("by_length", "by_tid"), true);

    private static Grant grant(String permission, String listedResource) {
        return new Grant(permission, Resource.parse(listedResource));
    }

    @Test
    void should_need_base_select_and_index_and_rows_table_select_modify_and_the_project_keyspace_without_create() {
        List<String> required = ServiceGrants.required("gsi", List.of(REVISIONS)).stream().map(Grant::toString)
                .collect(Collectors.toList());
        assertThat(required).containsExactly(
                "SELECT on keyspace gsi", "MODIFY on keyspace gsi",
                "SELECT on table wiki.revisions",
                "SELECT on table wiki.idx_revisions_by_length_ever", "MODIFY on table wiki.idx_revisions_by_length_ever",
                "SELECT on table wiki.idx_revisions_by_tid_ever", "MODIFY on table wiki.idx_revisions_by_tid_ever",
                "SELECT on table wiki.idx_revisions__rows", "MODIFY on table wiki.idx_revisions__rows");
    }

    @Test
    void should_need_select_and_modify_on_each_bucket_table() {
        IndexedTable bucketed = new IndexedTable("wiki", "revisions", List.of("by_length"), true, List.of("idx_revisions_by_length_day"));
        assertThat(ServiceGrants.required("gsi", List.of(bucketed)).stream().map(Grant::toString)).contains(
                "SELECT on table wiki.idx_revisions_by_length_day", "MODIFY on table wiki.idx_revisions_by_length_day");
    }

    @Test
    void should_leave_out_the_rows_table_when_a_table_has_none() {
        IndexedTable old = new IndexedTable("wiki", "pages", List.of("by_title"), false);
        assertThat(ServiceGrants.required("gsi", List.of(old)).stream().map(Grant::toString))
                .noneMatch(g -> g.contains("__rows"));
    }

    @Test
    void should_parse_the_data_resources_that_list_permissions_prints() {
        assertThat(Resource.parse("<all keyspaces>")).isEqualTo(new Resource(Level.ALL_KEYSPACES, null, null));
        assertThat(Resource.parse("<keyspace gsi>")).isEqualTo(new Resource(Level.KEYSPACE, "gsi", null));
        assertThat(Resource.parse("<all tables in gsi>")).isEqualTo(Resource.allTables("gsi"));
        assertThat(Resource.parse("<table wiki.idx_revisions__rows>")).isEqualTo(Resource.table("wiki", "idx_revisions__rows"));
        assertThat(Resource.parse("<role gsi_service>")).isNull();
        assertThat(Resource.parse("<all functions>")).isNull();
    }

    @Test
    void should_count_a_grant_on_a_keyspace_or_all_keyspaces_for_the_tables_under_it() {
        List<Grant> required = ServiceGrants.required("gsi", List.of(REVISIONS));
        List<Grant> granted = List.of(
                grant("SELECT", "<all keyspaces>"),
                grant("MODIFY", "<keyspace wiki>"),
                grant("MODIFY", "<all tables in gsi>"));
        assertThat(ServiceGrants.missing(required, granted)).isEmpty();
    }

    @Test
    void should_name_each_missing_grant_when_a_table_grant_is_on_another_table() {
        List<Grant> required = ServiceGrants.required("gsi", List.of(REVISIONS));
        List<Grant> granted = required.stream()
                .filter(g -> !g.toString().equals("MODIFY on table wiki.idx_revisions_by_tid_ever"))
                .filter(g -> !g.toString().equals("MODIFY on keyspace gsi"))
                .collect(Collectors.toList());
        granted.add(grant("MODIFY", "<table wiki.revisions>"));
        granted.add(grant("MODIFY", "<keyspace other>"));
        List<Grant> missing = ServiceGrants.missing(required, granted);
        assertThat(missing).extracting(Grant::toString)
                .containsExactly("MODIFY on keyspace gsi", "MODIFY on table wiki.idx_revisions_by_tid_ever");
        assertThat(ServiceGrants.refusal("gsi_service", missing)).isEqualTo(
                "role 'gsi_service' lacks 2 grants the repair service needs: MODIFY on keyspace gsi,"
                        + " MODIFY on table wiki.idx_revisions_by_tid_ever. As a superuser:"
                        + " GRANT MODIFY ON KEYSPACE gsi TO 'gsi_service';"
                        + " GRANT MODIFY ON TABLE wiki.idx_revisions_by_tid_ever TO 'gsi_service';");
    }

    @Test
    void should_quote_names_that_need_it_when_writing_grant_statements() {
        assertThat(new Grant("SELECT", Resource.table("Wiki", "my table")).cql("o'brien"))
                .isEqualTo("GRANT SELECT ON TABLE \"Wiki\".\"my table\" TO 'o''brien'");
    }
}
