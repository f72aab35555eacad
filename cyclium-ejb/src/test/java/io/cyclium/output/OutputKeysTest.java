package io.cyclium.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.keys.EpisodeRef;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class OutputKeysTest {

    static final EpisodeRef EPISODE = new EpisodeRef("6d0c4c1e-0000-4000-8000-000000000001", "monitor", "cpu",
            "schedule:monitor:cpu:2026-11-30T12:00:rc", null, "rc");
    static final JsonObject PAYLOAD = Json.createObjectBuilder().add("host", "web-1").add("cpu", 97).build();

    @Test
    void a_derived_key_is_the_same_after_a_restart_of_the_same_episode() {
        EpisodeRef restarted = new EpisodeRef(EPISODE.id(), EPISODE.actorId(), EPISODE.expectationId(),
                EPISODE.dedupeKey(), "stack-b", EPISODE.sourceEnv());

        String before = OutputKeys.effective(OutputProposal.of("log", "alert", PAYLOAD), EPISODE, "rc");
        String after = OutputKeys.effective(OutputProposal.of("log", "alert", Json.createObjectBuilder().build()),
                restarted, "rc");

        assertThat(after).isEqualTo(before).startsWith("out:").hasSize(4 + 64);
    }

    @Test
    void a_derived_key_differs_per_type_key_and_episode() {
        String base = OutputKeys.effective(OutputProposal.of("log", "alert", PAYLOAD), EPISODE, null);
        EpisodeRef other = new EpisodeRef(EPISODE.id(), "monitor", "cpu", "schedule:monitor:cpu:13:00", null, null);

        assertThat(OutputKeys.effective(OutputProposal.of("database", "alert", PAYLOAD), EPISODE, null)).isNotEqualTo(base);
        assertThat(OutputKeys.effective(OutputProposal.of("log", "alert-2", PAYLOAD), EPISODE, null)).isNotEqualTo(base);
        assertThat(OutputKeys.effective(OutputProposal.of("log", "alert", PAYLOAD), other, null)).isNotEqualTo(base);
    }

    @Test
    void an_episode_without_a_dedupe_key_derives_from_its_id_and_never_gets_an_env_suffix() {
        EpisodeRef manual = new EpisodeRef("ep-1", "monitor", "cpu", null, null, "rc");

        String key = OutputKeys.effective(OutputProposal.of("log", "alert", PAYLOAD), manual, "rc");

        assertThat(key).isEqualTo(OutputKeys.derived(manual, "log", "alert"))
                .isEqualTo("out:" + io.cyclium.keys.CanonicalJson.sha256Hex("ep-1|log|alert"))
                .doesNotEndWith(":rc");
    }

    @Test
    void an_explicit_key_gets_the_node_env_appended_only_when_the_env_is_set() {
        OutputProposal proposal = OutputProposal.withDedupeKey("log", "alert:disk:2026-11-30", PAYLOAD);

        assertThat(OutputKeys.effective(proposal, EPISODE, "rc")).isEqualTo("alert:disk:2026-11-30:rc");
        assertThat(OutputKeys.effective(proposal, EPISODE, null)).isEqualTo("alert:disk:2026-11-30");
        assertThat(OutputKeys.effective(proposal, EPISODE, " ")).isEqualTo("alert:disk:2026-11-30");
        assertThat(OutputKeys.effective(new OutputProposal("log", "ignored", "explicit", PAYLOAD), EPISODE, null))
                .as("the explicit key wins over the logical one").isEqualTo("explicit");
    }

    @Test
    void without_any_key_the_payloads_canonical_hash_is_the_logical_key() {
        JsonObject reordered = Json.createObjectBuilder().add("cpu", 97.0).add("host", "web-1").build();
        JsonObject different = Json.createObjectBuilder().add("host", "web-2").add("cpu", 97).build();

        String key = OutputKeys.effective(OutputProposal.of("log", null, PAYLOAD), EPISODE, null);

        assertThat(OutputKeys.effective(OutputProposal.of("log", " ", reordered), EPISODE, null)).isEqualTo(key);
        assertThat(OutputKeys.effective(OutputProposal.of("log", null, different), EPISODE, null)).isNotEqualTo(key);
        assertThat(OutputKeys.effective(OutputProposal.of("database", null, PAYLOAD), EPISODE, null)).isNotEqualTo(key);
    }

    @Test
    void an_explicit_key_too_long_for_the_column_is_refused() {
        assertThatThrownBy(() -> OutputKeys.effective(OutputProposal.withDedupeKey("log", "k".repeat(513), PAYLOAD),
                EPISODE, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("513");
    }

    @org.junit.jupiter.api.Test
    void a_workflow_steps_attempts_derive_one_key_so_a_retried_step_does_not_deliver_again() {
        EpisodeRef attempt1 = new EpisodeRef("e1", "a", "x", "workflow:inst-1:fetch:1", null, null);
        EpisodeRef attempt2 = new EpisodeRef("e2", "a", "x", "workflow:inst-1:fetch:2", null, null);
        EpisodeRef otherStep = new EpisodeRef("e3", "a", "x", "workflow:inst-1:store:1", null, null);
        OutputProposal p = OutputProposal.of("log", "alert", PAYLOAD);

        assertThat(OutputKeys.effective(p, attempt2, null)).isEqualTo(OutputKeys.effective(p, attempt1, null))
                .isNotEqualTo(OutputKeys.effective(p, otherStep, null));
    }

    @org.junit.jupiter.api.Test
    void a_retry_derives_the_key_of_the_chains_first_episode_and_without_it_one_key_for_all_its_retries() {
        EpisodeRef first = new EpisodeRef("first-id", "a", "x", "event:a:x:evt-9", null, null);
        EpisodeRef retry2 = new EpisodeRef("r2", "a", "x", "retry:first-id:2", null, null);
        EpisodeRef retry3 = new EpisodeRef("r3", "a", "x", "retry:first-id:3", null, null);
        OutputProposal p = OutputProposal.of("log", "alert", PAYLOAD);
        java.util.function.Function<String, java.util.Optional<String>> stored =
                id -> id.equals("first-id") ? java.util.Optional.of("event:a:x:evt-9") : java.util.Optional.empty();

        assertThat(OutputKeys.effective(p, retry2, null, stored)).isEqualTo(OutputKeys.effective(p, first, null));
        assertThat(OutputKeys.effective(p, retry3, null, id -> java.util.Optional.empty()))
                .as("the first episode purged").isEqualTo(OutputKeys.effective(p, retry2, null, id -> java.util.Optional.empty()));
    }
}
