package io.cassandragsi.schema;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BuildVersionTest {
    @Test
    void should_report_the_version_the_build_wrote() {
        assertThat(BuildVersion.get()).isNotEqualTo(BuildVersion.UNKNOWN).matches("\\d+\\.\\d+\\.\\d+.*");
    }

    @Test
    void should_say_unknown_when_there_is_no_version_resource() {
        assertThat(BuildVersion.read(String.class)).isEqualTo(BuildVersion.UNKNOWN);
    }
}
