package io.cyclium.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;

class ConsoleFormatTest {

    private final ConsoleFormat fmt = new ConsoleFormat();
    private final LocalDateTime now = LocalDateTime.of(2026, 11, 30, 8, 15, 0);

    @Test
    void ages_name_the_largest_unit_and_times_ahead_read_as_in() {
        assertThat(ConsoleFormat.ago(now.minusNanos(300_000_000), now)).isEqualTo("just now");
        assertThat(ConsoleFormat.ago(now.minusSeconds(12), now)).isEqualTo("12 s ago");
        assertThat(ConsoleFormat.ago(now.minusSeconds(200), now)).isEqualTo("3 min ago");
        assertThat(ConsoleFormat.ago(now.minusHours(5).minusMinutes(59), now)).isEqualTo("5 h ago");
        assertThat(ConsoleFormat.ago(now.minusDays(3), now)).isEqualTo("3 d ago");
        assertThat(ConsoleFormat.ago(now.plusSeconds(40), now)).isEqualTo("in 40 s");
        assertThat(ConsoleFormat.ago(null, now)).isEmpty();
    }

    @Test
    void durations_read_like_a_person_says_them() {
        assertThat(fmt.between(now, now.plusNanos(30_000_000))).isEqualTo("30 ms");
        assertThat(fmt.ms(1_234L)).isEqualTo("1.2 s");
        assertThat(fmt.ms(42_000L)).isEqualTo("42 s");
        assertThat(fmt.ms(184_000L)).isEqualTo("3 min 4 s");
        assertThat(fmt.ms(3_600_000L * 2 + 300_000)).isEqualTo("2 h 5 min");
        assertThat(fmt.ms(86_400_000L)).isEqualTo("1 d");
        assertThat(fmt.between(now, null)).isEmpty();
    }

    @Test
    void one_status_has_one_tone_wherever_it_appears() {
        assertThat(fmt.tone("done")).isEqualTo("tone-ok").isEqualTo(fmt.tone("delivered"));
        assertThat(fmt.tone("failed")).isEqualTo("tone-bad").isEqualTo(fmt.tone("FAILED"));
        assertThat(fmt.tone("running")).isEqualTo("tone-active").isEqualTo(fmt.tone("claimed"));
        assertThat(fmt.tone("blocked")).isEqualTo("tone-wait");
        assertThat(fmt.tone("canceled")).isEqualTo("tone-muted");
        assertThat(fmt.tone("something new")).isEqualTo("tone-muted");
        assertThat(fmt.tone(null)).isEqualTo("tone-muted");
    }

    @Test
    void json_is_indented_and_anything_else_is_left_alone() {
        assertThat(fmt.pretty("{\"a\":1,\"b\":[true]}")).contains("\n").contains("\"a\": 1");
        assertThat(fmt.pretty("not json {")).isEqualTo("not json {");
        assertThat(fmt.pretty("\"just a string\"")).isEqualTo("\"just a string\"");
        assertThat(fmt.preview("{\n  \"a\": 1\n}")).isEqualTo("{ \"a\": 1 }");
        assertThat(fmt.preview("x".repeat(200))).hasSize(ConsoleFormat.PREVIEW_CHARS);
    }
}
