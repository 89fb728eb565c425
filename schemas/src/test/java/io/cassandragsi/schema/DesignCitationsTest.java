package io.cassandragsi.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The project's design document is cited by the code, and the citations must resolve: every
 * citation of a section of {@code docs/design.md} in the sources (every module's {@code src/main/java}
 * and {@code src/test/java}, the {@code gsi} script and the Markdown files) names a numbered heading
 * that the document has; every document of {@code docs/} that the sources or README name exists; and every
 * relative link of README and {@code docs/} leads to a file (and heading) that exists.
 *
 * <p>A citation is the document's path, then {@code section} and a number ({@code 4}, or {@code 6.2}
 * for a subsection), or {@code sections} and several ({@code 3 and 7}, {@code 1, 2 and 5}); it may
 * wrap across comment lines. Sections are the headings {@code ## N. Title} and subsections
 * {@code ### N.M Title}.
 */
class DesignCitationsTest {
    /** Tests run in their module's directory: the repository root is its parent. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path DESIGN = ROOT.resolve("docs").resolve("design.md");

    /** What may stand between the words of a citation: spaces, line breaks and comment markers. */
    private static final String GAP = "[\\s*/#]+";
    private static final String NUMBER = "\\d+(?:\\.\\d+)*";
    static final Pattern CITATION = Pattern.compile("docs/design\\.md,?" + GAP + "sections?" + GAP + "(" + NUMBER
            + "(?:(?:[\\s*/#]*,[\\s*/#]*|" + GAP + "and" + GAP + ")" + NUMBER + ")*)");
    private static final Pattern NUMBERS = Pattern.compile(NUMBER);
    static final Pattern DOCUMENT = Pattern.compile("docs/([A-Za-z0-9_-]+)\\.md");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern SECTION = Pattern.compile("## (\\d+)\\. \\S.*");
    private static final Pattern SUBSECTION = Pattern.compile("### (\\d+)\\.(\\d+) \\S.*");
    private static final Pattern HEADING = Pattern.compile("(#{1,6})\\s+(.*?)\\s*#*\\s*");

    /** A citation found: where, and the section numbers it names. */
    record Citation(String where, List<String> sections) {}

    @Test
    void should_find_every_cited_section_when_sources_cite_the_design() throws IOException {
        Set<String> sections = sections(read(DESIGN));
        List<String> problems = new ArrayList<>();
        for (Path file : sources()) {
            for (Citation c : citations(relative(file), read(file))) {
                for (String section : c.sections()) {
                    if (!sections.contains(section)) {
                        problems.add(c.where() + ": cites docs/design.md section " + section + ", which it does not have");
                    }
                }
            }
        }
        assertThat(problems).as("citations of docs/design.md that do not resolve (its sections: %s)", sections).isEmpty();
    }

    @Test
    void should_number_sections_consecutively_when_the_design_is_read() throws IOException {
        List<String> problems = new ArrayList<>();
        int section = 0;
        int subsection = 0;
        for (String line : outsideCode(read(DESIGN))) {
            Matcher top = SECTION.matcher(line);
            Matcher sub = SUBSECTION.matcher(line);
            if (top.matches()) {
                int n = Integer.parseInt(top.group(1));
                if (n != section + 1) {
                    problems.add("'" + line + "' follows section " + section);
                }
                section = n;
                subsection = 0;
            } else if (sub.matches()) {
                int n = Integer.parseInt(sub.group(1));
                int m = Integer.parseInt(sub.group(2));
                if (n != section || m != subsection + 1) {
                    problems.add("'" + line + "' follows " + section + (subsection == 0 ? "" : "." + subsection));
                }
                subsection = m;
            } else if (line.startsWith("## ") || line.startsWith("### ")) {
                problems.add("'" + line + "' is not numbered (## N. Title, ### N.M Title)");
            }
        }
        assertThat(section).as("numbered sections in docs/design.md").isPositive();
        assertThat(problems).as("section numbers of docs/design.md").isEmpty();
    }

    @Test
    void should_find_every_named_document_when_sources_or_readme_name_one() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path file : sources()) {
            String text = read(file);
            Matcher m = DOCUMENT.matcher(text);
            while (m.find()) {
                if (!Files.isRegularFile(ROOT.resolve("docs").resolve(m.group(1) + ".md"))) {
                    problems.add(relative(file) + ":" + line(text, m.start()) + ": names " + m.group() + ", which does not exist");
                }
            }
        }
        assertThat(problems).as("documents named that do not exist").isEmpty();
    }

    @Test
    void should_resolve_every_relative_link_when_readme_or_docs_link() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path file : markdown()) {
            String text = read(file);
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path linked = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                String where = relative(file) + ":" + line(text, m.start()) + ": link " + target;
                if (!Files.exists(linked)) {
                    problems.add(where + ": no such file");
                } else if (anchor != null && linked.toString().endsWith(".md") && !anchors(read(linked)).contains(anchor)) {
                    problems.add(where + ": no such heading in " + relative(linked));
                }
            }
        }
        assertThat(problems).as("relative links of README and docs/ that do not resolve").isEmpty();
    }

    @Test
    void should_read_plural_and_wrapped_citations_when_comments_cite_sections() {
        String doc = "docs/" + "design.md"; // spelled apart so that this file cites nothing itself
        String text = "/** See " + doc + " sections 3 and 7, and\n * " + doc + "\n * section 6.2. Also " + doc
                + " sections 1, 2 and 5; " + doc + ", section 4.\n// not DESIGN.md section 9 nor " + doc + " section N */";
        assertThat(citations("Example.java", text)).containsExactly(
                new Citation("Example.java:1", List.of("3", "7")),
                new Citation("Example.java:2", List.of("6.2")),
                new Citation("Example.java:3", List.of("1", "2", "5")),
                new Citation("Example.java:3", List.of("4")));
    }

    @Test
    void should_make_github_anchors_when_headings_carry_numbers_and_code() {
        assertThat(anchors("## 4. The write-timestamp rule (contract)\n### 6.3 When a row is recomputed\n## `./gsi up`\n## Layout\n## Layout\n"))
                .containsExactly("4-the-write-timestamp-rule-contract", "63-when-a-row-is-recomputed", "gsi-up", "layout", "layout-1");
    }

    /** The section numbers a text cites, with where (file:line of the citation's start). */
    static List<Citation> citations(String file, String text) {
        List<Citation> out = new ArrayList<>();
        Matcher m = CITATION.matcher(text);
        while (m.find()) {
            List<String> numbers = new ArrayList<>();
            Matcher n = NUMBERS.matcher(m.group(1));
            while (n.find()) {
                numbers.add(n.group());
            }
            out.add(new Citation(file + ":" + line(text, m.start()), numbers));
        }
        return out;
    }

    /** The numbers of the design's sections ({@code N}) and subsections ({@code N.M}). */
    static Set<String> sections(String design) {
        Set<String> out = new LinkedHashSet<>();
        for (String line : outsideCode(design)) {
            Matcher top = SECTION.matcher(line);
            Matcher sub = SUBSECTION.matcher(line);
            if (top.matches()) {
                out.add(top.group(1));
            } else if (sub.matches()) {
                out.add(sub.group(1) + "." + sub.group(2));
            }
        }
        return out;
    }

    /** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as '-', repeats numbered. */
    static List<String> anchors(String markdown) {
        List<String> out = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : outsideCode(markdown)) {
            Matcher h = HEADING.matcher(line);
            if (!h.matches()) {
                continue;
            }
            StringBuilder slug = new StringBuilder();
            for (char c : h.group(2).toLowerCase(Locale.ROOT).toCharArray()) {
                if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                    slug.append(c);
                } else if (c == ' ') {
                    slug.append('-');
                }
            }
            String base = slug.toString();
            int n = seen.merge(base, 1, Integer::sum) - 1;
            out.add(n == 0 ? base : base + "-" + n);
        }
        return out;
    }

    /** The lines of a Markdown text outside fenced code blocks. */
    private static List<String> outsideCode(String markdown) {
        List<String> out = new ArrayList<>();
        boolean code = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.startsWith("```")) {
                code = !code;
            } else if (!code) {
                out.add(line);
            }
        }
        return out;
    }

    /** Every file that may cite the design: each module's main and test sources, the gsi script, the Markdown files. */
    private static List<Path> sources() throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path module : modules()) {
            for (String tree : List.of("src/main/java", "src/test/java")) {
                Path dir = module.resolve(tree);
                if (Files.isDirectory(dir)) {
                    try (Stream<Path> files = Files.walk(dir)) {
                        files.filter(Files::isRegularFile).sorted().forEach(out::add);
                    }
                }
            }
        }
        Path script = ROOT.resolve("gsi");
        if (Files.isRegularFile(script)) {
            out.add(script);
        }
        out.addAll(markdown());
        assertThat(out).as("sources under %s", ROOT).isNotEmpty();
        return out;
    }

    /** The modules: directories of the root that hold a pom.xml. */
    private static List<Path> modules() throws IOException {
        try (Stream<Path> dirs = Files.list(ROOT)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).sorted().toList();
        }
    }

    /** README.md of the root and of each module, and every Markdown file of docs/. */
    private static List<Path> markdown() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(ROOT.resolve("README.md"));
        for (Path module : modules()) {
            if (Files.isRegularFile(module.resolve("README.md"))) {
                out.add(module.resolve("README.md"));
            }
        }
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }

    private static String read(Path file) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            return ""; // not text
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static String relative(Path file) {
        return ROOT.relativize(file).toString().replace('\\', '/');
    }

    private static int line(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
