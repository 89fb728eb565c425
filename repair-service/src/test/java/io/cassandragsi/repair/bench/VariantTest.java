package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VariantTest {
    @Test
    void should_measure_the_seven_variants_by_default_in_brief_order() {
        assertThat(Variant.defaults()).extracting(Variant::label)
                .containsExactly("unindexed", "gsi-1", "gsi-3", "mv", "mv-3", "sai", "logged-batch");
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
                .hasMessage("unknown variant 'gsi1' (variants: unindexed, gsi-1, gsi-3, mv, mv-3, sai, logged-batch, trigger-only, batch-as-trigger)");
        assertThatThrownBy(() -> Variant.parseList("mv,mv")).hasMessage("variant 'mv' is listed twice");
        assertThatThrownBy(() -> Variant.parseList("mv,")).hasMessageStartingWith("empty variant name");
    }

    @Test
    void should_give_each_variant_its_own_keyspace() {
        assertThat(Variant.GSI_1.keyspace()).isEqualTo("bench_gsi_1");
        assertThat(Variant.LOGGED_BATCH.keyspace()).isEqualTo("bench_logged_batch");
        assertThat(java.util.Arrays.stream(Variant.values()).map(Variant::keyspace).distinct().count())
                .isEqualTo(Variant.values().length);
    }
}
