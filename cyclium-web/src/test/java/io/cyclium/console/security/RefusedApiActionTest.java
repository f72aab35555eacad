package io.cyclium.console.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.audit.AuditAction;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class RefusedApiActionTest {

    /**
     * POSTs the API offers that change nothing, so are no operator actions of the audit trail (event
     * intake is a servlet): a bulk action's preview (a read with a body; viewers may send it too).
     */
    private static final Set<String> NOT_AUDITED = Set.of("POST /bulk-actions/preview");

    @Test
    void every_change_the_api_offers_names_its_action_and_each_action_is_reachable() throws Exception {
        List<String> missing = new ArrayList<>();
        Set<AuditAction> seen = EnumSet.noneOf(AuditAction.class);
        for (Class<?> resource : resources()) {
            String base = resource.getAnnotation(Path.class).value();
            for (Method m : resource.getDeclaredMethods()) {
                String verb = m.isAnnotationPresent(POST.class) ? "POST" : m.isAnnotationPresent(PUT.class) ? "PUT"
                        : m.isAnnotationPresent(DELETE.class) ? "DELETE" : m.isAnnotationPresent(PATCH.class) ? "PATCH" : null;
                if (verb == null) {
                    continue;
                }
                Path sub = m.getAnnotation(Path.class);
                String template = "/" + base + (sub == null ? "" : "/" + sub.value());
                String sample = template.replaceAll("\\{[^}]+}", "x-1").replaceAll("/+", "/");
                String key = verb + " " + template;
                RefusedApiAction.of(verb, sample).ifPresentOrElse(r -> seen.add(r.action()), () -> {
                    if (!NOT_AUDITED.contains(key)) {
                        missing.add(key);
                    }
                });
            }
        }
        assertThat(missing).as("API changes without an audit action for a refused caller").isEmpty();
        assertThat(seen).as("every action is one the API offers").containsExactlyInAnyOrder(AuditAction.values());
    }

    @Test
    void subjects_come_from_the_path_decoded_and_reads_are_no_actions() {
        assertThat(RefusedApiAction.of("POST", "/episodes/ep%2D7/approve")).hasValueSatisfying(r -> {
            assertThat(r.action()).isEqualTo(AuditAction.EPISODE_APPROVE);
            assertThat(r.subjectId()).isEqualTo("ep-7");
        });
        assertThat(RefusedApiAction.of("PUT", "/mode/")).hasValueSatisfying(r -> {
            assertThat(r.action()).isEqualTo(AuditAction.NODE_MODE);
            assertThat(r.subjectId()).isEqualTo(RefusedApiAction.THIS_NODE);
        });
        assertThat(RefusedApiAction.of("POST", "/workflow-instances/i-1/steps/s-2/approve").orElseThrow().subjectId()).isEqualTo("i-1");
        assertThat(RefusedApiAction.of("GET", "/mode")).isEmpty();
        assertThat(RefusedApiAction.of("POST", "/events")).isEmpty();
    }

    private static List<Class<?>> resources() throws URISyntaxException, java.io.IOException, ClassNotFoundException {
        java.nio.file.Path dir = Paths.get(io.cyclium.api.CycliumApi.class.getResource("CycliumApi.class").toURI()).getParent();
        List<Class<?>> found = new ArrayList<>();
        try (Stream<java.nio.file.Path> files = Files.list(dir)) {
            for (java.nio.file.Path f : files.filter(p -> p.toString().endsWith(".class") && !p.toString().contains("$")).toList()) {
                Class<?> c = Class.forName("io.cyclium.api." + f.getFileName().toString().replace(".class", ""), false,
                        RefusedApiActionTest.class.getClassLoader());
                if (c.isAnnotationPresent(Path.class)) {
                    found.add(c);
                }
            }
        }
        assertThat(found).as("resources found").hasSizeGreaterThan(5);
        return found;
    }
}
