package io.cyclium.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link and image in README.md and docs/**.md points at a file of the repository,
 * and every {@code #anchor} at a heading of its target, slugged the way GitHub renders headings.
 * External links (http:, https:, mailto:) are not followed.
 */
class DocLinksTest {

    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("(?m)^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+\"[^\"]*\")?\\s*$");
    private static final Pattern HTML_LINK = Pattern.compile("(?i)<(?:a|img)\\s[^>]*?(?:href|src)=\"([^\"]+)\"");
    private static final Pattern HTML_ANCHOR = Pattern.compile("(?i)<a\\s[^>]*?(?:id|name)=\"([^\"]+)\"");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(?:(?!\\1).)+?\\1", Pattern.DOTALL);
    private static final Pattern HEADING = Pattern.compile("(?m)^\\s{0,3}#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    @Test
    void every_relative_link_and_anchor_in_the_readme_and_docs_resolves() {
        Path root = Docs.root();
        List<String> problems = new ArrayList<>();
        List<Path> files = Docs.markdownFiles();
        for (Path file : files) {
            problems.addAll(problems(file, root));
        }
        assertThat(files).as("Markdown files checked").hasSizeGreaterThan(10);
        assertThat(problems).as("dead links (file: link -> what is wrong); fix the link or the heading it names").isEmpty();
    }

    @Test
    void the_checker_reports_a_missing_file_a_missing_anchor_and_a_link_out_of_the_repository(@TempDir Path dir)
            throws IOException {
        Files.writeString(dir.resolve("target.md"), "# Getting started\n\n## The `cyclium.mode` setting\n");
        Path source = dir.resolve("source.md");
        Files.writeString(source, String.join("\n",
                "[fine](target.md#getting-started) [fine too](target.md#the-cycliummode-setting) [self](#top)",
                "# Top",
                "[gone](missing.md) [bad anchor](target.md#getting-startd) [out](../../elsewhere.md)",
                "`[not a link](in-code.md)`",
                "```",
                "[nor this](in-a-fence.md)",
                "```",
                "[web](https://example.org/x.md)"));
        List<String> problems = problems(source, dir);
        assertThat(problems).hasSize(3);
        assertThat(String.join("\n", problems)).contains("missing.md").contains("#getting-startd").contains("elsewhere.md");
    }

    @Test
    void headings_slug_like_github() {
        assertThat(slugs("# Payara Micro 6 (the WAR)\n## H2 on Payara Server and WildFly: a TCP server\n"
                + "## `cyclium.work-claims.lease-seconds`\n## Retention\n## Retention\n"))
                .containsExactly("payara-micro-6-the-war", "h2-on-payara-server-and-wildfly-a-tcp-server",
                        "cycliumwork-claimslease-seconds", "retention", "retention-1");
    }

    /** What is wrong with the links of one file, each naming the file, its line and the link. */
    static List<String> problems(Path file, Path root) {
        String text = Docs.read(file);
        String prose = Docs.withoutFences(text);
        List<String> problems = new ArrayList<>();
        String[] lines = prose.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = CODE_SPAN.matcher(lines[i]).replaceAll("");
            for (Pattern p : List.of(INLINE_LINK, HTML_LINK)) {
                Matcher m = p.matcher(line);
                while (m.find()) {
                    check(file, root, i + 1, m.group(1)).ifPresent(problems::add);
                }
            }
        }
        Matcher defs = REFERENCE_DEFINITION.matcher(prose);
        while (defs.find()) {
            int line = (int) prose.substring(0, defs.start()).chars().filter(c -> c == '\n').count() + 1;
            check(file, root, line, defs.group(1)).ifPresent(problems::add);
        }
        return problems;
    }

    private static Optional<String> check(Path file, Path root, int line, String link) {
        String where = Docs.relativeTo(root, file) + ":" + line + ": " + link + " -> ";
        if (SCHEME.matcher(link).find() || link.startsWith("//")) {
            return Optional.empty();
        }
        int hash = link.indexOf('#');
        String pathPart = hash < 0 ? link : link.substring(0, hash);
        String anchor = hash < 0 ? null : URLDecoder.decode(link.substring(hash + 1), StandardCharsets.UTF_8);
        int query = pathPart.indexOf('?');
        if (query >= 0) {
            pathPart = pathPart.substring(0, query);
        }
        Path target = pathPart.isEmpty() ? file
                : file.getParent().resolve(URLDecoder.decode(pathPart, StandardCharsets.UTF_8)).normalize();
        if (!target.startsWith(root.normalize())) {
            return Optional.of(where + "points outside the repository");
        }
        if (!Files.exists(target)) {
            return Optional.of(where + "no such file " + Docs.relativeTo(root, target));
        }
        if (anchor != null && !anchor.isEmpty() && target.toString().endsWith(".md")) {
            Set<String> slugs = slugs(Docs.read(target));
            if (!slugs.contains(anchor)) {
                return Optional.of(where + "no heading #" + anchor + " in " + Docs.relativeTo(root, target)
                        + " (its anchors: " + slugs + ")");
            }
        }
        return Optional.empty();
    }

    /** The anchors GitHub gives a file: one per heading (duplicates numbered -1, -2 …) and explicit HTML anchors. */
    static Set<String> slugs(String markdown) {
        String prose = Docs.withoutFences(markdown);
        Set<String> slugs = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        Matcher m = HEADING.matcher(prose);
        while (m.find()) {
            String base = slug(m.group(1));
            int n = seen.merge(base, 1, Integer::sum) - 1;
            slugs.add(n == 0 ? base : base + "-" + n);
        }
        Matcher a = HTML_ANCHOR.matcher(prose);
        while (a.find()) {
            slugs.add(a.group(1));
        }
        return slugs;
    }

    /** GitHub's heading slug: the rendered text, lower case, punctuation dropped, each space a hyphen. */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // a link renders as its text
                .replaceAll("<[^>]+>", "");
        StringBuilder out = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (c == ' ') {
                out.append('-');
            } else if (c == '-' || c == '_' || Character.isLetterOrDigit(c)
                    || Character.getType(c) == Character.NON_SPACING_MARK) {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }
}
