package io.cyclium.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.actor.CycliumEvent;
import io.cyclium.runtime.EventAnswer;
import io.cyclium.runtime.Match;
import io.cyclium.runtime.Outcome;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The status {@code POST /events} answers for what its matches became (EventIntakeServlet.Verdict). */
class EventVerdictTest {

    private static Match match(Outcome outcome, String reason, Duration retryAfter) {
        return new Match("a", "e", null, "k", outcome, reason, null, retryAfter);
    }

    private static EventAnswer answer(Match... matches) {
        return new EventAnswer(new CycliumEvent("t", null, null), List.of(matches));
    }

    private static EventIntakeServlet.Verdict verdict(EventAnswer... answers) {
        return EventIntakeServlet.Verdict.of(List.of(answers));
    }

    @Test
    void stored_coalesced_and_debounced_matches_are_a_202_without_an_error() {
        EventIntakeServlet.Verdict v = verdict(answer(match(Outcome.STORED, null, null), match(Outcome.COALESCED, "duplicate",
                null)), answer(match(Outcome.DEBOUNCED, null, null), Match.ofWorkflow("w", Outcome.COALESCED, "in_flight", null)));

        assertThat(v.status()).isEqualTo(202);
        assertThat(v.error()).isNull();
        assertThat(v.statusField()).as("no status field in a 202 body").isNull();
        assertThat(v.retryAfterSeconds()).isNull();
    }

    @Test
    void events_that_matched_nothing_are_a_200() {
        assertThat(verdict(answer(), answer()).status()).isEqualTo(200);
    }

    @Test
    void a_match_cooling_down_or_dropped_for_overflow_is_a_429_with_the_longest_known_wait_rounded_up() {
        EventIntakeServlet.Verdict v = verdict(answer(match(Outcome.STORED, null, null)),
                answer(match(Outcome.COOLING_DOWN, "cooldown", Duration.ofMillis(2_100)),
                        match(Outcome.DROPPED, "overflow", null)));

        assertThat(v.status()).isEqualTo(429);
        assertThat(v.statusField()).isEqualTo(429);
        assertThat(v.retryAfterSeconds()).isEqualTo(3);
        assertThat(v.error()).contains("2 of 3 matches were not stored", "cooldown=1", "overflow=1");
    }

    @Test
    void a_disabled_match_or_an_open_breaker_makes_it_a_503_whatever_else_was_refused() {
        assertThat(verdict(answer(match(Outcome.COOLING_DOWN, "cooldown", Duration.ofSeconds(5)),
                match(Outcome.DISABLED, "disabled", null))).status()).isEqualTo(503);
        EventIntakeServlet.Verdict breaker = verdict(answer(match(Outcome.DROPPED, "breaker_open", Duration.ZERO)));
        assertThat(breaker.status()).isEqualTo(503);
        assertThat(breaker.retryAfterSeconds()).as("never 0: a client would be refused again at once").isEqualTo(1);
    }
}
