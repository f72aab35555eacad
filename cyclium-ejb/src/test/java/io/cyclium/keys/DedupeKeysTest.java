package io.cyclium.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.timing.ScheduleBuckets;
import io.cyclium.actor.trigger.TestJson;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class DedupeKeysTest {

    private static JsonValue json(String text) {
        return TestJson.value(text);
    }

    // ---- event --------------------------------------------------------------------------------

    @Test
    void two_nodes_seeing_the_same_event_compute_the_same_key() {
        // each node parses the event itself; member order differs on the wire
        String nodeA = DedupeKeys.event("disk-watch", "on-high", "evt-1", "cpu.high",
                json("{\"host\":\"db-1\",\"value\":0.93}"));
        String nodeB = DedupeKeys.event("disk-watch", "on-high", "evt-1", "cpu.high",
                json("{\"value\":0.93,\"host\":\"db-1\"}"));
        assertThat(nodeA).isEqualTo(nodeB);
    }

    @Test
    void an_event_with_an_id_hashes_the_id() {
        // sha256("evt-1") starts with 7b409f932d2c88e97f0c17676c8420d3
        assertThat(DedupeKeys.event("a", "e", "evt-1", "cpu.high", json("{}")))
                .isEqualTo("event:a:e:7b409f932d2c88e97f0c17676c8420d3");
    }

    @Test
    void an_event_id_wins_over_type_and_payload() {
        assertThat(DedupeKeys.event("a", "e", "evt-1", "cpu.high", json("{\"v\":1}")))
                .isEqualTo(DedupeKeys.event("a", "e", "evt-1", "mem.high", json("{\"v\":2}")));
    }

    @Test
    void events_with_different_ids_get_different_keys() {
        assertThat(DedupeKeys.event("a", "e", "evt-1", "cpu.high", json("{}")))
                .isNotEqualTo(DedupeKeys.event("a", "e", "evt-2", "cpu.high", json("{}")));
    }

    @Test
    void an_event_without_an_id_hashes_its_type_and_payload() {
        // sha256 of {"payload":{"host":"db-1","value":0.93},"type":"cpu.high"}
        assertThat(DedupeKeys.event("a", "e", null, "cpu.high", json("{\"value\":0.93,\"host\":\"db-1\"}")))
                .isEqualTo("event:a:e:fd941547b6bf71e6057199a6ed9642a7");
    }

    @Test
    void two_nodes_seeing_the_same_event_without_an_id_still_agree() {
        String nodeA = DedupeKeys.event("a", "e", null, "cpu.high",
                json("{\"limit\":10,\"ratio\":0.5,\"tags\":[\"x\",\"y\"]}"));
        String nodeB = DedupeKeys.event("a", "e", null, "cpu.high",
                json("{ \"tags\": [\"x\", \"y\"], \"ratio\": 5e-1, \"limit\": 1.0E1 }"));
        assertThat(nodeA).isEqualTo(nodeB);
    }

    @ParameterizedTest(name = "event id {0}")
    @NullSource
    @ValueSource(strings = {"", "   "})
    void a_blank_event_id_counts_as_no_id(String blankId) {
        assertThat(DedupeKeys.event("a", "e", blankId, "cpu.high", json("{\"value\":0.93,\"host\":\"db-1\"}")))
                .isEqualTo("event:a:e:fd941547b6bf71e6057199a6ed9642a7");
    }

    @Test
    void events_without_ids_differ_when_type_or_payload_differs() {
        String base = DedupeKeys.event("a", "e", null, "cpu.high", json("{\"v\":1}"));
        assertThat(DedupeKeys.event("a", "e", null, "cpu.low", json("{\"v\":1}"))).isNotEqualTo(base);
        assertThat(DedupeKeys.event("a", "e", null, "cpu.high", json("{\"v\":2}"))).isNotEqualTo(base);
        assertThat(DedupeKeys.event("a", "e", null, "cpu.high", json("{\"v\":\"1\"}"))).isNotEqualTo(base);
    }

    @Test
    void a_missing_type_and_payload_hash_as_json_nulls() {
        // sha256 of {"payload":null,"type":null}
        assertThat(DedupeKeys.event("a", "e", null, null, null))
                .isEqualTo("event:a:e:e11a06f671751e8136134ff0a0c89cef")
                .isEqualTo(DedupeKeys.event("a", "e", null, null, JsonValue.NULL));
    }

    @Test
    void the_same_event_for_another_actor_or_expectation_gets_another_key() {
        String key = DedupeKeys.event("a", "e", "evt-1", "t", null);
        assertThat(DedupeKeys.event("b", "e", "evt-1", "t", null)).isNotEqualTo(key);
        assertThat(DedupeKeys.event("a", "f", "evt-1", "t", null)).isNotEqualTo(key);
    }

    @Test
    void the_hash_part_is_32_lowercase_hex_characters() {
        String key = DedupeKeys.event("a", "e", null, "t", json("[1,2,3]"));
        assertThat(key.substring("event:a:e:".length())).matches("[0-9a-f]{32}");
    }

    // ---- schedule -----------------------------------------------------------------------------

    @Test
    void schedule_key_ends_with_the_bucket() {
        assertThat(DedupeKeys.schedule("report", "nightly", "2026-06-05T05:00:00Z"))
                .isEqualTo("schedule:report:nightly:2026-06-05T05:00:00Z");
    }

    @Test
    void two_nodes_whose_timers_fire_a_little_apart_get_the_same_schedule_key() {
        ScheduleBuckets hourly = ScheduleBuckets.every(Duration.ofHours(1));
        String nodeA = DedupeKeys.schedule("report", "hourly",
                hourly.bucket(Instant.parse("2026-06-05T05:00:00.150Z")));
        String nodeB = DedupeKeys.schedule("report", "hourly",
                hourly.bucket(Instant.parse("2026-06-05T05:00:02.700Z")));
        assertThat(nodeA).isEqualTo(nodeB).isEqualTo("schedule:report:hourly:2026-06-05T05:00:00Z");
    }

    @ParameterizedTest(name = "bucket {0}")
    @NullSource
    @ValueSource(strings = {"", " "})
    void a_schedule_key_needs_a_bucket(String bucket) {
        assertThatThrownBy(() -> DedupeKeys.schedule("report", "nightly", bucket))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket is required")
                .hasMessageContaining("\"report\"")
                .hasMessageContaining("\"nightly\"");
    }

    // ---- manual -------------------------------------------------------------------------------

    @Test
    void a_manual_fire_with_a_request_id_hashes_it() {
        // sha256("req-42") starts with fd1180d9f0c0819f00056b7b9de19fce
        assertThat(DedupeKeys.manual("a", "e", "req-42"))
                .isEqualTo("manual:a:e:fd1180d9f0c0819f00056b7b9de19fce")
                .isEqualTo(DedupeKeys.manual("a", "e", "req-42"));
    }

    @ParameterizedTest(name = "request id {0}")
    @NullSource
    @ValueSource(strings = {"", "  "})
    void a_manual_fire_without_a_request_id_has_no_key(String requestId) {
        assertThat(DedupeKeys.manual("a", "e", requestId)).isNull();
    }

    @Test
    void manual_and_event_keys_never_collide_for_the_same_id() {
        assertThat(DedupeKeys.manual("a", "e", "x").substring("manual:".length()))
                .isEqualTo(DedupeKeys.event("a", "e", "x", "t", null).substring("event:".length()));
        assertThat(DedupeKeys.manual("a", "e", "x")).isNotEqualTo(DedupeKeys.event("a", "e", "x", "t", null));
    }

    // ---- env ----------------------------------------------------------------------------------

    @Test
    void an_env_is_appended_after_a_colon() {
        assertThat(DedupeKeys.withEnv("schedule:a:e:2026-06-05T05:00:00Z", "rc"))
                .isEqualTo("schedule:a:e:2026-06-05T05:00:00Z:rc");
    }

    @ParameterizedTest(name = "env {0}")
    @NullSource
    @ValueSource(strings = {"", "   "})
    void without_an_env_the_key_is_byte_identical(String env) {
        String key = DedupeKeys.event("a", "e", "evt-1", "t", null);
        String result = DedupeKeys.withEnv(key, env);
        assertThat(result).isSameAs(key);
        assertThat(result.getBytes(StandardCharsets.UTF_8)).isEqualTo(key.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void a_null_key_stays_null_with_or_without_env() {
        assertThat(DedupeKeys.withEnv(null, "rc")).isNull();
        assertThat(DedupeKeys.withEnv(null, null)).isNull();
        assertThat(DedupeKeys.withEnv(DedupeKeys.manual("a", "e", null), "rc")).isNull();
    }

    @Test
    void the_same_trigger_in_two_envs_gets_two_keys() {
        String key = DedupeKeys.schedule("a", "e", "2026-06-05T05:00:00Z");
        assertThat(DedupeKeys.withEnv(key, "prod"))
                .isNotEqualTo(DedupeKeys.withEnv(key, "rc"))
                .isNotEqualTo(DedupeKeys.withEnv(key, null));
    }

    @Test
    void an_env_that_pushes_the_key_past_512_characters_is_rejected() {
        String key = DedupeKeys.schedule("a".repeat(400), "e".repeat(81), "2026-06-05T05:00:00Z");
        assertThat(key).hasSize(512);
        assertThatThrownBy(() -> DedupeKeys.withEnv(key, "rc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("env \"rc\"")
                .hasMessageContaining("515 characters");
    }

    // ---- ids and length -----------------------------------------------------------------------

    @Test
    void a_key_of_exactly_512_characters_is_allowed() {
        // "schedule:" 9 + 400 + ":" + 81 + ":" + 20-character bucket = 512
        assertThat(DedupeKeys.schedule("a".repeat(400), "e".repeat(81), "2026-06-05T05:00:00Z")).hasSize(512);
        // "event:" 6 + 400 + ":" + 72 + ":" + 32 = 512
        assertThat(DedupeKeys.event("a".repeat(400), "e".repeat(72), "id", "t", null)).hasSize(512);
    }

    @Test
    void ids_that_push_a_key_past_512_characters_are_rejected_naming_the_ids() {
        String actor = "a".repeat(400);
        String expectation = "e".repeat(82);
        assertThatThrownBy(() -> DedupeKeys.schedule(actor, expectation, "2026-06-05T05:00:00Z"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("actor \"" + actor + "\"")
                .hasMessageContaining("expectation \"" + expectation + "\"")
                .hasMessageContaining("513 characters")
                .hasMessageContaining("512");
        assertThatThrownBy(() -> DedupeKeys.event(actor, "e".repeat(73), "id", "t", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("513 characters");
        assertThatThrownBy(() -> DedupeKeys.manual(actor, "e".repeat(72), "req"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("513 characters");
    }

    @Test
    void ids_containing_a_colon_are_rejected_because_keys_could_collide() {
        // "a:b" + "c" and "a" + "b:c" would both give schedule:a:b:c:<bucket>
        assertThatThrownBy(() -> DedupeKeys.schedule("a:b", "c", "2026-06-05T05:00:00Z"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("actor id \"a:b\" must not contain ':' because dedupe keys use it to"
                        + " separate their parts");
        assertThatThrownBy(() -> DedupeKeys.event("a", "b:c", "id", "t", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("expectation id \"b:c\" must not contain ':'");
    }

    @Test
    void blank_or_missing_ids_are_rejected() {
        assertThatThrownBy(() -> DedupeKeys.manual(null, "e", "r"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("actor id is required for a dedupe key, got null");
        assertThatThrownBy(() -> DedupeKeys.schedule("a", " ", "b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expectation id is required for a dedupe key, got \" \"");
    }
}
