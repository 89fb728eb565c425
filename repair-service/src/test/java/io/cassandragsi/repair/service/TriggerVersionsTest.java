package io.cassandragsi.repair.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.store.TriggerVersionsTable.Report;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TriggerVersionsTest {
    private static Report report(String node, String version) {
        return new Report(node, version, Instant.parse("2026-11-29T10:00:00Z"), Instant.parse("2026-11-29T11:00:00Z"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void should_warn_about_the_nodes_whose_trigger_jar_has_another_version() {
        List<Report> reports = new ArrayList<>(List.of(report("10.0.0.2:7000", "0.1.0"), report("10.0.0.1:7000", "0.2.0")));
        try (TriggerVersions versions = new TriggerVersions(() -> reports, "0.1.0")) {
            versions.refresh();
            Map<String, Object> status = versions.status();
            List<Map<String, Object>> nodes = (List<Map<String, Object>>) status.get("nodes");
            assertThat(nodes).extracting(n -> n.get("node")).containsExactly("10.0.0.1:7000", "10.0.0.2:7000");
            assertThat(nodes).extracting(n -> n.get("same_as_service")).containsExactly(false, true);
            assertThat((List<String>) status.get("warnings")).singleElement().asString()
                    .startsWith("node 10.0.0.1:7000 runs trigger jar 0.2.0, this service is 0.1.0");

            reports.set(1, report("10.0.0.1:7000", "0.1.0"));
            versions.refresh();
            assertThat((List<String>) versions.status().get("warnings")).as("once the node is upgraded").isEmpty();
        }
    }

    @Test
    void should_say_why_when_the_versions_cannot_be_read() {
        try (TriggerVersions versions = new TriggerVersions(() -> {
            throw new IllegalStateException("no route");
        }, "0.1.0")) {
            versions.refresh();
            assertThat(versions.status()).containsEntry("error", "java.lang.IllegalStateException: no route");
        }
    }
}
