package io.cyclium.finding;

import static io.cyclium.finding.FindingFixture.episode;
import static io.cyclium.finding.FindingFixture.ids;
import static io.cyclium.finding.FindingFixture.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.keys.EpisodeRef;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link FindingQueries} against real databases: env-strict reads, filters and listings.
 * Every test uses keys and classes of its own, so tests share each vendor's database.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class FindingQueriesTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    // ---------------------------------------------------------------- reads

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void active_for_filters_by_actor_class_key_subject_cause_and_minimum_severity(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String cls = "filter_" + UUID.randomUUID();
        String other = "filter_" + UUID.randomUUID();
        EpisodeRef monitor = new EpisodeRef(UUID.randomUUID().toString(), "monitor", "cpu", null, null, "rc");
        EpisodeRef advisor = new EpisodeRef(UUID.randomUUID().toString(), "advisor", "advice", null, null, "rc");
        String a = f.apply(FindingAction.raise(key(), cls).withSeverity(Severity.LOW).withSubject("host", "web-1"),
                monitor).findingId();
        String b = f.apply(FindingAction.raise(key(), cls).withSeverity(Severity.HIGH).withSubject("host", "web-2")
                .causedBy("root-cause"), advisor).findingId();
        String c = f.apply(FindingAction.raise(key(), other).withSeverity(Severity.CRITICAL)
                .withSubject("db", "main"), monitor).findingId();
        String cKey = f.row(c).findingKey();

        assertThat(ids(f.activeFor(Map.of("class", cls), "rc"))).containsExactlyInAnyOrder(a, b);
        assertThat(ids(f.activeFor(Map.of("class", cls, "actor", "advisor"), "rc"))).containsExactly(b);
        assertThat(ids(f.activeFor(Map.of("finding_key", cKey), "rc"))).containsExactly(c);
        assertThat(ids(f.activeFor(Map.of("class", cls, "subject_kind", "host", "subject_id", "web-1"), "rc")))
                .containsExactly(a);
        assertThat(ids(f.activeFor(Map.of("caused_by", "root-cause", "class", cls), "rc"))).containsExactly(b);
        assertThat(ids(f.activeFor(Map.of("class", cls, "severity", "medium"), "rc")))
                .as("severity is a minimum").containsExactly(b);
        assertThat(ids(f.activeFor(Map.of("class", cls), null))).as("strictly env-scoped").isEmpty();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_unknown_filter_is_refused_with_the_allowed_names(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));

        assertThatThrownBy(() -> f.activeFor(Map.of("colour", "red"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"colour\"")
                .hasMessageContaining("actor, class, finding_key, subject_kind, subject_id, caused_by, severity");
        assertThatThrownBy(() -> f.activeFor(Map.of("severity", "urgent"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"urgent\"").hasMessageContaining("low, medium, high, critical");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_listing_filters_by_status_class_and_env_and_refuses_an_unknown_status(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String cls = "list_" + UUID.randomUUID();
        String key = key();
        f.apply(FindingAction.raise(key, cls), episode("prod"));
        f.apply(FindingAction.clear(key, "done"), episode("prod"));
        f.apply(FindingAction.raise(key, cls), episode("prod"));
        f.apply(FindingAction.raise(key, cls), episode(null));

        assertThat(f.list("active", cls, null, true)).extracting(FindingView::env).containsExactlyInAnyOrder("prod", null);
        assertThat(f.list("cleared", cls, "prod", false)).hasSize(1);
        assertThat(f.list(null, cls, "prod", false)).extracting(FindingView::status)
                .containsExactlyInAnyOrder("active", "cleared");
        assertThat(f.list("active", cls, null, false)).extracting(FindingView::env).containsOnlyNulls().hasSize(1);
        assertThatThrownBy(() -> f.list("open", cls, null, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"open\"");
    }
}
