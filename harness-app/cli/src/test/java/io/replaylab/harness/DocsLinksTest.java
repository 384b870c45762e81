package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/** Every relative link of the repository's Markdown reaches a file, and a link to a heading reaches one GitHub would make. */
class DocsLinksTest {
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize(); // the module's directory is the test's working directory
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Set<String> SKIPPED = Set.of("target", "lab-runs", "node_modules", ".git", "resources");

    @Test
    void everyRelativeLinkInTheMarkdownReachesAFileAndItsHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        List<Path> docs;
        try (Stream<Path> s = Files.walk(ROOT)) {
            docs = s.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> { for (Path part : ROOT.relativize(p)) { if (SKIPPED.contains(part.toString())) { return false; } } return true; })
                    .toList();
        }
        assertThat(docs).as("README and docs found").hasSizeGreaterThan(5);
        for (Path doc : docs) {
            String text = withoutCode(Files.readString(doc));
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String link = m.group(1);
                if (link.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                String file = link.contains("#") ? link.substring(0, link.indexOf('#')) : link;
                String anchor = link.contains("#") ? link.substring(link.indexOf('#') + 1) : null;
                Path target = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                if (!Files.exists(target)) {
                    broken.add(ROOT.relativize(doc) + ": " + link + " (no such file)");
                } else if (anchor != null && target.toString().endsWith(".md") && !anchors(target).contains(anchor)) {
                    broken.add(ROOT.relativize(doc) + ": " + link + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    /** GitHub's anchors of a file's headings: lower case, punctuation but '-' and '_' dropped, spaces as '-'. */
    private static Set<String> anchors(Path md) {
        try {
            return withoutCode(Files.readString(md)).lines().filter(l -> l.startsWith("#")).map(l -> l.replaceFirst("^#+\\s*", "").strip().toLowerCase()
                    .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-')).collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The text without fenced code blocks (a '#' there is a comment, a ']('  an expression). */
    private static String withoutCode(String text) {
        return text.replaceAll("(?ms)^```.*?^```", "");
    }
}
