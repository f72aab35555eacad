package io.cyclium.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.workflow.StepView;
import java.io.StringReader;
import java.time.LocalDateTime;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WorkflowDiagramTest {

    static final LocalDateTime NOW = LocalDateTime.of(2026, 11, 30, 12, 0);

    @Test
    void a_retry_already_due_says_how_long_ago() {
        LocalDateTime due = LocalDateTime.of(2026, 11, 30, 12, 34, 56);
        assertThat(WorkflowDiagram.retryDue(due, due.plusSeconds(3))).isEqualTo("retry due 3 s ago");
        assertThat(WorkflowDiagram.retryDue(due, due.minusMinutes(2))).isEqualTo("retry in 2 min");
    }

    static StepView step(String id, String state, int attempt, LocalDateTime next, String episode, boolean critical,
            String... deps) {
        return new StepView(id, "actor", "exp", List.of(deps), critical, false, state, attempt, 3, next, null, episode,
                null, null, null, 0, null, null, 0, null);
    }

    static Document parse(String svg) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new InputSource(new StringReader(svg)));
    }

    static Element group(Document doc, String stepId) {
        NodeList groups = doc.getElementsByTagName("g");
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            if (stepId.equals(g.getAttribute("data-step"))) {
                return g;
            }
        }
        throw new AssertionError("no box for " + stepId);
    }

    static int x(Element g) {
        return Integer.parseInt(((Element) g.getElementsByTagName("rect").item(0)).getAttribute("x"));
    }

    @Test
    void each_step_sits_right_of_its_deepest_dependency_with_one_arrow_per_dependency() throws Exception {
        Document doc = parse(WorkflowDiagram.svg(List.of(step("a", "completed", 1, null, "e1", true),
                step("b", "running", 1, null, "e2", true, "a"), step("c", "completed", 1, null, "e3", true, "a"),
                step("d", "pending", 0, null, null, true, "b", "c", "a")), e -> "/cyclium/episode.xhtml?id=" + e, NOW));

        assertThat(x(group(doc, "b"))).isGreaterThan(x(group(doc, "a"))).isEqualTo(x(group(doc, "c")));
        assertThat(x(group(doc, "d"))).isGreaterThan(x(group(doc, "b")));
        assertThat(doc.getElementsByTagName("line").getLength()).isEqualTo(5);
    }

    @Test
    void boxes_are_coloured_by_state_link_to_their_episode_and_show_attempts_and_the_next_retry() throws Exception {
        LocalDateTime due = LocalDateTime.of(2026, 11, 30, 12, 34, 56);
        Document doc = parse(WorkflowDiagram.svg(List.of(step("ok", "completed", 1, null, "e1", true),
                step("flaky", "failed", 2, due, "e2", false), step("todo", "pending", 0, null, null, true)),
                e -> "/ctx/episode.xhtml?id=" + e, due.minusSeconds(40)));

        Element flaky = group(doc, "flaky");
        assertThat(((Element) flaky.getElementsByTagName("rect").item(0)).getAttribute("stroke-dasharray")).isNotEmpty();
        assertThat(flaky.getTextContent()).contains("attempt 2/3").contains("retry in 40 s");
        assertThat(flaky.getElementsByTagName("title").item(0).getTextContent())
                .endsWith("next attempt 2026-11-30 12:34:56.000 UTC");
        assertThat(((Element) flaky.getParentNode()).getAttribute("href")).isEqualTo("/ctx/episode.xhtml?id=e2");
        assertThat(((Element) group(doc, "ok").getElementsByTagName("rect").item(0)).getAttribute("fill"))
                .isEqualTo(WorkflowDiagram.FILL.get("completed"));
        assertThat(group(doc, "todo").getParentNode().getNodeName()).as("no episode, no link").isEqualTo("svg");
    }

    @Test
    void a_keyed_step_names_its_concurrency_key_and_limit_and_while_it_waits_the_hover_text_says_why() throws Exception {
        StepView running = new StepView("work", "actor", "exp", List.of(), true, false, "running", 1, 3, null, null, "e1", null,
                null, null, 0, null, "$.tenant", 1, null);
        StepView queued = new StepView("next", "actor", "exp", List.of("work"), false, false, "queued", 1, 3, null, null, "e2",
                null, null, null, 0, null, "$.tenant", 2, "step wf/next key acme at limit 2/2");
        Document doc = parse(WorkflowDiagram.svg(List.of(running, queued), e -> "/e?id=" + e, NOW));

        Element work = group(doc, "work");
        assertThat(work.getTextContent()).contains("key $.tenant, 1 at once");
        assertThat(work.getElementsByTagName("title").item(0).getTextContent())
                .endsWith("concurrency key $.tenant, 1 at once per key");
        Element next = group(doc, "next");
        assertThat(next.getTextContent()).contains("waits for key $.tenant").doesNotContain("non-critical");
        assertThat(next.getElementsByTagName("title").item(0).getTextContent())
                .endsWith("concurrency key $.tenant, 2 at once per key · waits: step wf/next key acme at limit 2/2");
        assertThat(group(parse(WorkflowDiagram.svg(List.of(step("plain", "running", 1, null, "e3", true)), e -> e, NOW)),
                "plain").getTextContent()).doesNotContain("key");
    }

    @Test
    void text_from_the_database_is_escaped() throws Exception {
        String svg = WorkflowDiagram.svg(List.of(step("<script>&", "failed", 1, null, "\"><x", true)), e -> "/e?id=" + e, NOW);

        assertThat(svg).doesNotContain("<script>").doesNotContain("\"><x");
        assertThat(group(parse(svg), "<script>&").getTextContent()).contains("<script>&");
    }
}
