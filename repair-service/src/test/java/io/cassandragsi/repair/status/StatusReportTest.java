package io.cassandragsi.repair.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The status for people, from the map /admin/status sends, without a service. */
class StatusReportTest {
    /** A status as the service makes it: one node silent, one running, retries pending, a definition problem. */
    static Map<String, Object> status() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("owner", "vm/1/abc");
        s.put("shards", List.of(2, 0, 1));
        s.put("lag_ms", 12_400L);
        s.put("pending_retries", 3);
        s.put("pending_by_table", Map.of("wiki.revisions", 3));
        s.put("markers_read", 100L);
        s.put("markers_done", 97L);
        s.put("indexes", Map.of("wiki.revisions/by_length", Map.of("marked_deleted", 5L, "upserted", 9L)));
        s.put("buckets", Map.of("wiki.revisions/by_length", Map.of("period", "day", "sealed", 30, "not_sealed", 2, "newest_sealed", "2026-11-25")));
        s.put("nodes", List.of(
                Map.of("node", "127.0.0.1:7000", "state", "running", "heartbeat_age_ms", 21_000L, "lag_ms", 21_500L, "queued", 10L, "done", 8L,
                        "handed_off", 1L, "retried", 0L, "sweep", "due"),
                Map.of("node", "127.0.0.2:7000", "state", "running", "heartbeat_age_ms", 900L, "lag_ms", 40L, "queued", 5L, "done", 5L,
                        "handed_off", 0L, "retried", 0L, "sweep", "none (running)")));
        s.put("safe_time", Map.of("service", Map.of("at", "2026-11-26T10:00:00Z", "lag_ms", 350L, "held_by", "shard 2 (worked here)"),
                "node", Map.of("at", "2026-11-26T09:59:39Z", "lag_ms", 21_350L, "held_by", "maintainer epoch 7 on 127.0.0.1:7000 (silent; sweep due)"),
                "lag_ms_by_index", Map.of("wiki.revisions/by_length", 350L, "wiki.revisions/by_tid", 350L)));
        s.put("unowned_shards", List.of(5, 6));
        s.put("definition_problems", Map.of("app.users", "column 'email' is an int in the table, a string in the definition"));
        s.put("jobs", List.of(Map.of("id", "rebuild-7", "kind", "rebuild", "keyspace", "wiki", "table", "revisions", "index", "by_length",
                "state", "running", "progress", Map.of("ranges_done", 3, "ranges_total", 64, "rows", 1200))));
        return s;
    }

    @Test
    void should_say_what_the_service_waits_for_when_a_node_is_silent_retries_are_pending_and_it_lags() {
        StatusReport r = StatusReport.of(status());
        assertThat(r.waiting()).containsExactly(
                "the safe time of tables in node mode is 21.4 s behind now, held back by maintainer epoch 7 on 127.0.0.1:7000 (silent; sweep due)",
                "queue shard(s) 5, 6: no service instance holds the lease (their markers wait, the safe time stops)",
                "the service is 12.4 s behind the newest markers",
                "node 127.0.0.1:7000: its maintainer has been silent for 21.0 s (the service sweeps its work)",
                "node 127.0.0.1:7000: the sweep of its stopped maintainer's work (another instance, or this one soon)",
                "wiki.revisions: 3 group(s) of markers waiting for another attempt");
        assertThat(r.nodes().rows()).hasSize(2);
        assertThat(r.nodes().rows().get(1)).containsExactly("127.0.0.2:7000", "running", "900 ms ago", "40 ms", "5", "5", "0", "0", "none (running)");
        assertThat(r.indexes().rows()).containsExactly(
                List.of("wiki.revisions/by_length", "350 ms", "9", "5", "day: 30 sealed, 2 not (newest 2026-11-25)"),
                List.of("wiki.revisions/by_tid", "350 ms", "-", "-", "-"));
        assertThat(r.service()).anySatisfy(kv -> assertThat(kv).containsExactly("safe time, tables in service mode",
                "2026-11-26T10:00:00Z (350 ms behind; held by shard 2 (worked here))"));
        assertThat(r.jobs().rows()).containsExactly(List.of("rebuild-7", "rebuild", "wiki.revisions by_length", "running", "3 / 64", "1200", "-"));
        assertThat(r.problems()).containsExactly("app.users: column 'email' is an int in the table, a string in the definition");
        assertThat(r.service()).anySatisfy(kv -> assertThat(kv).containsExactly("queue shards read here", "0, 1, 2"));
    }

    @Test
    void should_name_a_cassandra_node_the_driver_sees_down() {
        StatusReport r = StatusReport.of(Map.of("cassandra", List.of(Map.of("address", "127.0.0.1:9042", "state", "UP"),
                Map.of("address", "127.0.0.3:9042", "state", "DOWN"))));
        assertThat(r.waiting()).containsExactly("Cassandra node 127.0.0.3:9042 is DOWN (as the driver sees it): requests at LOCAL_QUORUM"
                + " need a majority of each partition's replicas");
    }

    @Test
    void should_not_wait_for_a_killed_maintainer_whose_work_was_swept() {
        StatusReport r = StatusReport.of(Map.of("nodes", List.of(Map.of("node", "127.0.0.1:7000", "state", "running", "heartbeat_age_ms",
                93_000L, "sweep", "done"))));
        assertThat(r.waiting()).isEmpty();
        assertThat(r.nodes().rows().get(0).get(1)).as("state").isEqualTo("ended (swept)");
    }

    @Test
    void should_name_a_pending_targeted_repair_of_lost_cdc_segments_and_not_a_harmless_loss() {
        StatusReport r = StatusReport.of(Map.of("nodes", List.of(Map.of("node", "127.0.0.2:7000", "state", "running", "heartbeat_age_ms", 200L,
                "sweep", "none (running)", "cdc_segments_lost", 3L, "cdc_repair", "pending")), "cdc_repairs", Map.of("pending", 1, "running", 0,
                        "done", 2)));
        assertThat(r.waiting()).singleElement().asString().contains("127.0.0.2:7000").contains("dropped 3 CDC segment(s)")
                .contains("check --fix of the node's ranges (pending)").contains("the safe time waits");
        assertThat(StatusText.render(r, "http://127.0.0.1:8080")).contains("CDC loss repairs pending / running / done").contains("1 / 0 / 2");
        StatusReport harmless = StatusReport.of(Map.of("nodes", List.of(Map.of("node", "127.0.0.2:7000", "state", "running", "heartbeat_age_ms",
                200L, "sweep", "none (running)", "cdc_segments_lost", 3L, "cdc_repair", "harmless"))));
        assertThat(harmless.waiting()).as("every epoch behind the lost segments passed them").isEmpty();
    }

    @Test
    void should_wait_for_nothing_when_the_service_is_idle() {
        StatusReport r = StatusReport.of(Map.of("lag_ms", 0, "nodes", List.of(), "pending_by_table", Map.of()));
        assertThat(r.waiting()).isEmpty();
        assertThat(StatusText.render(r, "http://127.0.0.1:8080")).contains("Waiting for\n  nothing\n")
                .contains("In-node maintainers\n  none (no table in node mode");
    }

    @Test
    void should_print_aligned_columns_in_the_terminal() {
        String text = StatusText.render(StatusReport.of(status()), "http://127.0.0.1:8080");
        assertThat(text).startsWith("Repair service (http://127.0.0.1:8080)\n").contains("  lag  ", "12.4 s")
                .contains("  node            state    heartbeat   lag     queued  done  handed off  retried  sweep\n")
                .contains("  127.0.0.1:7000  running  21.0 s ago  21.5 s  10      8     1           0        due\n");
    }

    @Test
    void should_write_durations_for_people() {
        assertThat(StatusReport.millis(850)).isEqualTo("850 ms");
        assertThat(StatusReport.millis(12_340)).isEqualTo("12.3 s");
        assertThat(StatusReport.millis(250_000)).isEqualTo("4 min 10 s");
        assertThat(StatusReport.millis(null)).isEqualTo("-");
    }

    @Test
    void should_escape_every_value_and_carry_no_script_in_the_page() {
        Map<String, Object> s = status();
        s.put("definition_problems", Map.of("ks.<script>alert(1)</script>", "a \"quoted\" & 'odd' reason"));
        String html = StatusHtml.render(StatusReport.of(s), "2026-11-26T00:00:00Z");
        assertThat(html).startsWith("<!DOCTYPE html>").contains("<meta http-equiv=\"refresh\" content=\"5\">")
                .contains("ks.&lt;script&gt;alert(1)&lt;/script&gt;: a &quot;quoted&quot; &amp; &#39;odd&#39; reason")
                .doesNotContain("<script").doesNotContain("http://").doesNotContain("https://")
                .contains("<td>127.0.0.1:7000</td>").contains("<td class=\"n\">21.0 s ago</td>");
    }
}
