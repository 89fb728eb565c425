package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VariantTest {
    @Test
    void should_measure_the_seventeen_variants_by_default_in_brief_order_when_no_list_is_given() {
        assertThat(Variant.defaults()).extracting(Variant::label)
                .containsExactly("unindexed", "gsi-1", "gsi-3", "gsi-1-e2e", "gsi-3-e2e", "gsi-1-node-e2e", "gsi-1-eventual", "gsi-1-eventual-e2e",
                        "mv", "mv-3", "sai", "logged-batch", "unindexed-u", "gsi-1-u", "mv-u", "gsi-1-u-node-e2e", "gsi-1-u-eventual-e2e");
    }

    @Test
    void should_compare_each_variant_with_the_unindexed_variant_of_its_own_table() {
        assertThat(Variant.values()).filteredOn(Variant::unversioned)
                .containsExactly(Variant.UNINDEXED_U, Variant.GSI_1_U, Variant.MV_U, Variant.GSI_1_U_NODE_E2E, Variant.GSI_1_U_EVENTUAL_E2E,
                        Variant.GSI_1_U_E2E, Variant.ROWS_TABLE_U, Variant.BATCH_AS_TRIGGER_U);
        assertThat(Variant.GSI_1_U_EVENTUAL_E2E.unindexed()).isEqualTo(Variant.UNINDEXED_U);
        assertThat(Variant.GSI_1_EVENTUAL.unindexed()).isEqualTo(Variant.UNINDEXED);
        assertThat(Variant.GSI_1_U_NODE_E2E.unindexed()).isEqualTo(Variant.UNINDEXED_U);
        assertThat(Variant.GSI_1_U.unindexed()).isEqualTo(Variant.UNINDEXED_U);
        assertThat(Variant.MV_U.unindexed()).isEqualTo(Variant.UNINDEXED_U);
        assertThat(Variant.UNINDEXED_U.unindexed()).isEqualTo(Variant.UNINDEXED_U);
        assertThat(Variant.MV.unindexed()).isEqualTo(Variant.UNINDEXED);
        assertThat(Variant.BATCH_AS_TRIGGER.unindexed()).isEqualTo(Variant.UNINDEXED);
        assertThat(Variant.BATCH_AS_TRIGGER_U.unindexed()).isEqualTo(Variant.UNINDEXED_U);
    }

    @Test
    void should_count_as_indexed_by_the_trigger_only_the_variants_with_index_tables() {
        assertThat(Variant.values()).filteredOn(Variant::indexedByTrigger)
                .containsExactly(Variant.GSI_1, Variant.GSI_3, Variant.GSI_1_E2E, Variant.GSI_3_E2E, Variant.GSI_1_NODE_E2E,
                        Variant.GSI_1_EVENTUAL, Variant.GSI_1_EVENTUAL_E2E, Variant.GSI_1_U, Variant.GSI_1_U_NODE_E2E,
                        Variant.GSI_1_U_EVENTUAL_E2E, Variant.GSI_1_U_E2E);
        assertThat(Variant.values()).filteredOn(Variant::e2e).containsExactly(Variant.GSI_1_E2E, Variant.GSI_3_E2E, Variant.GSI_1_NODE_E2E,
                Variant.GSI_1_EVENTUAL_E2E, Variant.GSI_1_U_NODE_E2E, Variant.GSI_1_U_EVENTUAL_E2E, Variant.GSI_1_U_E2E);
        assertThat(Variant.values()).filteredOn(Variant::nodeMode).containsExactly(Variant.GSI_1_NODE_E2E, Variant.GSI_1_EVENTUAL,
                Variant.GSI_1_EVENTUAL_E2E, Variant.GSI_1_U_NODE_E2E, Variant.GSI_1_U_EVENTUAL_E2E);
        assertThat(Variant.values()).filteredOn(Variant::eventual).containsExactly(Variant.GSI_1_EVENTUAL, Variant.GSI_1_EVENTUAL_E2E,
                Variant.GSI_1_U_EVENTUAL_E2E);
    }

    @Test
    void should_keep_the_order_given_when_parsing_a_list() {
        assertThat(Variant.parseList("mv, gsi-1,UNINDEXED,trigger-only"))
                .containsExactly(Variant.MV, Variant.GSI_1, Variant.UNINDEXED, Variant.TRIGGER_ONLY);
    }

    @Test
    void should_name_the_valid_variants_when_one_is_unknown() {
        assertThatThrownBy(() -> Variant.parseList("gsi-1,gsi1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown variant 'gsi1' (variants: unindexed, gsi-1, gsi-3, gsi-1-e2e, gsi-3-e2e, gsi-1-node-e2e, gsi-1-eventual,"
                        + " gsi-1-eventual-e2e, mv, mv-3, sai, logged-batch, unindexed-u, gsi-1-u, mv-u, gsi-1-u-node-e2e, gsi-1-u-eventual-e2e,"
                        + " gsi-1-u-e2e, trigger-only, batch-as-trigger, rows-table-u, batch-as-trigger-u)");
        assertThatThrownBy(() -> Variant.parseList("mv,mv")).hasMessage("variant 'mv' is listed twice");
        assertThatThrownBy(() -> Variant.parseList("mv,")).hasMessageStartingWith("empty variant name");
    }

    @Test
    void should_give_each_variant_its_own_keyspace() {
        assertThat(Variant.GSI_1.keyspace()).isEqualTo("bench_gsi_1");
        assertThat(Variant.LOGGED_BATCH.keyspace()).isEqualTo("bench_logged_batch");
        assertThat(Variant.GSI_1_U.keyspace()).isEqualTo("bench_gsi_1_u");
        assertThat(java.util.Arrays.stream(Variant.values()).map(Variant::keyspace).distinct().count())
                .isEqualTo(Variant.values().length);
    }
}
