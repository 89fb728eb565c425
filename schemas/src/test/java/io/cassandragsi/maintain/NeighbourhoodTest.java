package io.cassandragsi.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** How a diff's neighbourhood is taken from a batch read of a row's newest versions ({@link VersionedTable#prefetch}). */
class NeighbourhoodTest {
    /** A version of a one-attribute row whose only value is its tid. */
    private static Version v(java.util.UUID tid) {
        return new Version(new ByteBuffer[] {io.cassandragsi.index.Tids.bytes(tid)}, 0);
    }

    private static java.util.UUID t(long ticks) {
        return io.cassandragsi.index.Tids.fromTicks(ticks, 7);
    }

    @Test
    void should_take_the_neighbourhood_from_the_newest_versions_when_they_show_it_whole() {
        java.util.List<Version> newest = java.util.List.of(v(t(40)), v(t(30)), v(t(20))); // newest first, 3 asked
        assertThat(VersionedTable.neighbourhoodOf(newest, 3, t(40), t(40))).extracting(Version::tid).containsExactly(t(30), t(40));
        assertThat(VersionedTable.neighbourhoodOf(newest, 3, t(30), t(30))).extracting(Version::tid).containsExactly(t(20), t(30), t(40));
        // a row with fewer versions than asked: the oldest has no version before it
        assertThat(VersionedTable.neighbourhoodOf(newest.subList(0, 2), 3, t(30), t(40))).extracting(Version::tid)
                .containsExactly(t(30), t(40));
    }

    @Test
    void should_not_guess_a_neighbourhood_the_newest_versions_cut_off() {
        java.util.List<Version> newest = java.util.List.of(v(t(40)), v(t(30)), v(t(20)));
        assertThat(VersionedTable.neighbourhoodOf(newest, 3, t(20), t(20))).as("the version before 20 may exist").isNull();
        assertThat(VersionedTable.neighbourhoodOf(newest, 3, t(10), t(10))).as("not among them").isNull();
        assertThat(VersionedTable.neighbourhoodOf(newest, 3, t(50), t(50))).as("not visible yet").isNull();
        assertThat(VersionedTable.neighbourhoodOf(java.util.List.of(), 3, t(50), t(50))).isNull();
    }
}
