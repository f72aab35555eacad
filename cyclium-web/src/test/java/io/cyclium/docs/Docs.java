package io.cyclium.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where the documentation and the sources are: the repository's root, found from the module's
 * working directory (Surefire runs in the module, an IDE may run in the root), and the Markdown
 * files the project publishes (README.md and everything under docs/).
 */
final class Docs {

    private Docs() {
    }

    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("cyclium-ejb"))
                    && Files.isDirectory(p.resolve("docs"))) {
                return p;
            }
        }
        throw new IllegalStateException("No repository root (README.md, cyclium-ejb/, docs/) above " + dir);
    }

    static Path doc(String relative) {
        Path p = root().resolve(relative);
        if (!Files.isRegularFile(p)) {
            throw new IllegalStateException(relative + " is missing: the documentation tests expect it there");
        }
        return p;
    }

    static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** README.md and every Markdown file under docs/, in a stable order. */
    static List<Path> markdownFiles() {
        Path root = root();
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> s = Files.walk(root.resolve("docs"))) {
            files.addAll(s.filter(p -> p.toString().endsWith(".md")).sorted().collect(Collectors.toList()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The production Java sources of both modules (where configuration keys and metric names are written). */
    static List<Path> mainSources() {
        Path root = root();
        List<Path> files = new ArrayList<>();
        for (String module : List.of("cyclium-ejb", "cyclium-web")) {
            Path dir = root.resolve(module).resolve("src/main/java");
            try (Stream<Path> s = Files.walk(dir)) {
                files.addAll(s.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /** The text without fenced code blocks (``` or ~~~), line count kept so line numbers still match. */
    static String withoutFences(String markdown) {
        StringBuilder out = new StringBuilder();
        boolean fenced = false;
        String fence = null;
        for (String line : markdown.split("\n", -1)) {
            String t = line.stripLeading();
            if (!fenced && (t.startsWith("```") || t.startsWith("~~~"))) {
                fenced = true;
                fence = t.substring(0, 3);
                out.append('\n');
                continue;
            }
            if (fenced) {
                if (t.startsWith(fence)) {
                    fenced = false;
                }
                out.append('\n');
                continue;
            }
            out.append(line).append('\n');
        }
        return out.toString();
    }

    /** The first cell of every table row, without surrounding spaces. */
    static List<String> firstCells(String markdown) {
        List<String> cells = new ArrayList<>();
        for (String line : withoutFences(markdown).split("\n")) {
            String t = line.strip();
            if (t.startsWith("|") && !t.matches("\\|[\\s:|-]+")) {
                String[] parts = t.substring(1).split("(?<!\\\\)\\|", -1);
                if (parts.length > 0) {
                    cells.add(parts[0].strip());
                }
            }
        }
        return cells;
    }

    static String relative(Path p) {
        return relativeTo(root(), p);
    }

    static String relativeTo(Path root, Path p) {
        return root.toAbsolutePath().normalize().relativize(p.toAbsolutePath().normalize()).toString().replace('\\', '/');
    }
}
