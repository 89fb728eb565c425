package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.read.IndexReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/** Reads of every page of a query, as the read suites judge them: no item twice, every page as of the first page's moment. */
final class PagedReads {
    private PagedReads() {}

    /**
     * All pages of {@code q} through {@code reader}, each with a limit from 1 to 9 drawn from {@code
     * limits} (null: the query's own), with the moment the first page is as of in {@code asOf[0]}.
     */
    static List<Map<String, Object>> readAll(IndexReader reader, IndexReader.Query q, Random limits, Instant[] asOf) {
        List<Map<String, Object>> all = new ArrayList<>();
        Set<Object> seen = new HashSet<>();
        String next = null;
        int pages = 0;
        do {
            IndexReader.Query pageQuery = limits == null ? q : q.withLimit(1 + limits.nextInt(9));
            IndexReader.Page page = reader.read(pageQuery.withNext(next));
            if (pages == 0) {
                asOf[0] = page.asOf();
            }
            assertThat(page.asOf()).as("every page as of the first page's moment").isEqualTo(asOf[0]);
            for (Map<String, Object> item : page.items()) {
                assertThat(seen.add(item)).as("duplicate item %s", item).isTrue();
            }
            all.addAll(page.items());
            next = page.next();
            assertThat(++pages).isLessThan(1000);
        } while (next != null);
        return all;
    }

    /** The items' row keys and tids, in item order. */
    static Map<String, String> keysAndTids(List<Map<String, Object>> items) {
        Map<String, String> out = new LinkedHashMap<>();
        items.forEach(i -> out.put((String) i.get("key"), String.valueOf(i.get("tid"))));
        return out;
    }
}
