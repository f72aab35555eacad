package io.cyclium.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.operations.EpisodeDetail;
import io.cyclium.operations.EpisodeView;
import io.cyclium.operations.StepView;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class EpisodeTimelineTest {

    private final LocalDateTime t0 = LocalDateTime.of(2026, 11, 30, 8, 0, 0);

    private EpisodeDetail detail(String status, LocalDateTime finished, StepView... steps) {
        EpisodeView e = new EpisodeView("e1", "a", "x", "manual", "k", status, "p", 1, 3, "node-b", null, null, null, null,
                t0, finished);
        return new EpisodeDetail(e, null, false, List.of(steps), List.of(), List.of(), List.of(), null, null, null);
    }

    private StepView step(int no, String kind, String node, String detail, Long ms, int atSeconds) {
        return new StepView(no, kind, node, detail, null, null, ms, t0.plusSeconds(atSeconds));
    }

    @Test
    void a_run_that_a_drain_interrupted_and_another_node_resumed_shows_the_lease_moving_with_its_fence() {
        Timeline tl = EpisodeTimeline.of(detail("done", t0.plusSeconds(10),
                step(1, "observation", "node-a", "{}", 1000L, 1),
                step(2, "interrupted", "node-a", "{\"event\":\"interrupted\",\"reason\":\"drain\"}", null, 2),
                step(3, "resumed", "node-b", "{\"event\":\"resumed\",\"attempt\":2,\"fromCheckpoint\":1,\"fence\":4}", null, 6),
                step(4, "episode_completed", "node-b", "{}", 500L, 10)), t0.plusSeconds(60));

        assertThat(tl.running()).isFalse();
        assertThat(tl.totalMs()).isEqualTo(10_000);
        assertThat(tl.entries()).extracting(Timeline.Entry::mark).containsExactly(Timeline.Mark.NONE, Timeline.Mark.INTERRUPTED,
                Timeline.Mark.LEASE_MOVED, Timeline.Mark.RESUMED, Timeline.Mark.DONE);
        assertThat(tl.entries().get(1).note()).isEqualTo("interrupted on node-a (drain)");
        assertThat(tl.entries().get(2).note()).isEqualTo("from node-a to node-b, fence 4");
        assertThat(tl.entries().get(3).note()).isEqualTo("resumed on node-b from checkpoint 1, fence 4");
        // the first step worked from 0 s to 1 s of a 10 s run: its bar starts at 0 % and is 10 % wide
        assertThat(tl.barLeft(tl.entries().get(0))).isEqualTo(0.0);
        assertThat(tl.barWidth(tl.entries().get(0))).isEqualTo(10.0);
        assertThat(tl.pct(tl.percentAt(t0.plusSeconds(6)))).isEqualTo("60.0%");
    }

    @Test
    void an_approval_still_awaited_is_a_wait_running_to_now() {
        Timeline tl = EpisodeTimeline.of(detail("blocked", null,
                step(1, "observation", "node-a", "{}", 10L, 1),
                step(2, "approval_requested", "node-a", "{\"plan\":{},\"planHash\":\"h\"}", null, 2)), t0.plusSeconds(20));

        assertThat(tl.running()).isTrue();
        assertThat(tl.end()).isEqualTo(t0.plusSeconds(20));
        assertThat(tl.spans()).hasSize(1);
        assertThat(tl.spans().get(0).label()).isEqualTo("awaiting approval (still)");
        assertThat(tl.spanMs(tl.spans().get(0))).isEqualTo(18_000);
        assertThat(tl.spanLeft(tl.spans().get(0))).isEqualTo(10.0);
    }

    @Test
    void a_restart_by_an_operator_is_marked_with_who_and_from_what() {
        Timeline tl = EpisodeTimeline.of(detail("running", null,
                step(1, "episode_failed", "node-a", "{}", null, 1),
                step(2, "restarted", "node-a", "{\"by\":\"admin\",\"previousStatus\":\"failed\",\"previousError\":\"x\"}", null, 5)),
                t0.plusSeconds(5));

        assertThat(tl.entries()).extracting(Timeline.Entry::mark).containsExactly(Timeline.Mark.FAILED, Timeline.Mark.RESTARTED);
        assertThat(tl.entries().get(1).note()).isEqualTo("restarted by admin after failed");
    }
}
