package io.cassandragsi.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cassandragsi.schema.CdcLosses.Behind;
import io.cassandragsi.schema.CdcLosses.EpochNow;
import io.cassandragsi.schema.CdcLosses.Verdict;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which CDC losses are harmless and which need the targeted repair (docs/design.md section 7.11). */
class CdcLossesTest {
    private static final long CHANGED = 1_000_000L;
    private static final Behind LOST = new Behind(7, CHANGED - 3_000, CHANGED);

    @Test
    void should_clear_a_loss_once_its_epoch_passes_the_segment_by_the_skew_or_retires() {
        assertThat(CdcLosses.judge(LOST, new EpochNow(false, false, CHANGED + CdcLosses.SKEW_MS + 1))).isEqualTo(Verdict.HARMLESS);
        assertThat(CdcLosses.judge(LOST, new EpochNow(false, true, CHANGED + CdcLosses.SKEW_MS + 1)))
                .as("it passed the segment before it stopped").isEqualTo(Verdict.HARMLESS);
        assertThat(CdcLosses.judge(LOST, new EpochNow(true, true, CHANGED - 3_000))).as("a retiring maintainer hands its writes off")
                .isEqualTo(Verdict.HARMLESS);
    }

    @Test
    void should_wait_on_a_running_epoch_and_ask_for_a_repair_when_it_stops_first_or_its_record_is_gone() {
        assertThat(CdcLosses.judge(LOST, new EpochNow(false, false, CHANGED + CdcLosses.SKEW_MS))).isEqualTo(Verdict.OPEN);
        assertThat(CdcLosses.judge(LOST, new EpochNow(false, true, CHANGED - 3_000))).isEqualTo(Verdict.HARMFUL);
        assertThat(CdcLosses.judge(LOST, null)).isEqualTo(Verdict.HARMFUL);
    }

    @Test
    void should_merge_per_epoch_round_trip_the_text_and_cover_only_as_late_a_loss() {
        Map<Integer, Behind> m = CdcLosses.merge(Map.of(), LOST);
        m = CdcLosses.merge(m, new Behind(7, CHANGED - 9_000, CHANGED - 5_000));
        m = CdcLosses.merge(m, new Behind(3, 10, 20));
        assertThat(m.get(7)).isEqualTo(new Behind(7, CHANGED - 9_000, CHANGED));
        String text = CdcLosses.format(m);
        assertThat(text).isEqualTo("3:10:20;7:" + (CHANGED - 9_000) + ":" + CHANGED);
        assertThat(CdcLosses.parse(text)).isEqualTo(m);
        assertThat(CdcLosses.parse(null)).isEmpty();
        assertThat(CdcLosses.parse("")).isEmpty();
        assertThat(CdcLosses.covered(LOST, m)).isTrue();
        Behind later = new Behind(7, CHANGED, CHANGED + 1);
        assertThat(CdcLosses.covered(later, m)).as("a segment lost after the repair began needs one more").isFalse();
        assertThat(CdcLosses.covered(new Behind(9, 0, 0), m)).isFalse();
        assertThatThrownBy(() -> CdcLosses.parse("7:x:1")).hasMessageContaining("7:x:1");
    }
}
