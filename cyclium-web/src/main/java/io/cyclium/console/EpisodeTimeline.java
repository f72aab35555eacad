package io.cyclium.console;

import io.cyclium.operations.EpisodeDetail;
import io.cyclium.episode.StepKind;
import io.cyclium.operations.StepView;
import io.cyclium.store.JsonText;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An episode's journal read as a story on a time axis: each step with its duration and node, and
 * marks where the story turns — a drain interrupted it, a sweep or an operator resumed or
 * restarted it, the lease moved to another node (with the fence the new owner holds, when the
 * resumed marker recorded it), an approval or a wait held it.
 */
public final class EpisodeTimeline {

    private EpisodeTimeline() {
    }

    public static Timeline of(EpisodeDetail detail, LocalDateTime now) {
        List<StepView> steps = detail.steps();
        LocalDateTime start = detail.episode().startedAt();
        if (start == null && !steps.isEmpty()) {
            start = steps.get(0).createdAt();
        }
        if (start == null) {
            start = now;
        }
        LocalDateTime finished = detail.episode().finishedAt();
        boolean running = finished == null;
        LocalDateTime end = running ? later(now, last(steps)) : finished;
        if (end.isBefore(start)) {
            end = start;
        }
        List<Timeline.Entry> entries = new ArrayList<>();
        List<Timeline.Span> spans = new ArrayList<>();
        String previousNode = null;
        LocalDateTime waitFrom = null;
        String waitLabel = null;
        for (StepView s : steps) {
            String node = s.nodeIdentity();
            if (previousNode != null && node != null && !previousNode.equals(node)) {
                entries.add(new Timeline.Entry("lease moved", node, s.createdAt(), null, Timeline.Mark.LEASE_MOVED,
                        "from " + previousNode + " to " + node + fence(s), null, null));
            }
            if (node != null) {
                previousNode = node;
            }
            Timeline.Mark mark = switch (s.kind()) {
                case StepKind.INTERRUPTED -> Timeline.Mark.INTERRUPTED;
                case StepKind.RESUMED -> Timeline.Mark.RESUMED;
                case StepKind.RESTARTED -> Timeline.Mark.RESTARTED;
                case StepKind.APPROVAL_REQUESTED, StepKind.WAIT_STARTED -> Timeline.Mark.WAIT;
                case StepKind.EPISODE_FAILED, StepKind.OUTPUT_FAILED -> Timeline.Mark.FAILED;
                case StepKind.EPISODE_COMPLETED -> Timeline.Mark.DONE;
                default -> s.errorClass() != null ? Timeline.Mark.FAILED : Timeline.Mark.NONE;
            };
            entries.add(new Timeline.Entry(s.kind().replace('_', ' '), node, s.createdAt(), s.costMs(), mark,
                    note(s), s.detail(), s.errorClass()));
            if (StepKind.APPROVAL_REQUESTED.equals(s.kind()) || StepKind.WAIT_STARTED.equals(s.kind())) {
                waitFrom = s.createdAt();
                waitLabel = StepKind.APPROVAL_REQUESTED.equals(s.kind()) ? "awaiting approval" : "waiting";
            } else if ((StepKind.APPROVAL_RESOLVED.equals(s.kind()) || StepKind.WAIT_RESOLVED.equals(s.kind())) && waitFrom != null) {
                spans.add(new Timeline.Span(waitLabel, waitFrom, s.createdAt()));
                waitFrom = null;
            }
        }
        if (waitFrom != null) {
            spans.add(new Timeline.Span(waitLabel + (running ? " (still)" : ""), waitFrom, running ? null : end));
        }
        return new Timeline(start, end, running, List.copyOf(entries), List.copyOf(spans));
    }

    /** What a marker step means, in words. */
    private static String note(StepView s) {
        JsonObject d = detail(s);
        return switch (s.kind()) {
            case StepKind.INTERRUPTED -> "interrupted on " + s.nodeIdentity() + (d.containsKey("reason")
                    ? " (" + d.getString("reason", "") + ")" : "");
            case StepKind.RESUMED -> "resumed on " + s.nodeIdentity() + checkpoint(d) + fence(s);
            case StepKind.RESTARTED -> "restarted by " + d.getString("by", "an operator") + " after "
                    + d.getString("previousStatus", "its end");
            default -> null;
        };
    }

    private static String checkpoint(JsonObject d) {
        JsonValue cp = d.get("fromCheckpoint");
        return cp == null || cp.getValueType() == JsonValue.ValueType.NULL ? " from the start" : " from checkpoint " + cp;
    }

    private static String fence(StepView s) {
        if (!StepKind.RESUMED.equals(s.kind())) {
            return "";
        }
        JsonValue f = detail(s).get("fence");
        return f == null || f.getValueType() == JsonValue.ValueType.NULL ? "" : ", fence " + f;
    }

    private static JsonObject detail(StepView s) {
        try {
            return JsonText.parseObject(s.detail());
        } catch (RuntimeException notJson) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
    }

    private static LocalDateTime last(List<StepView> steps) {
        return steps.isEmpty() ? null : steps.get(steps.size() - 1).createdAt();
    }

    private static LocalDateTime later(LocalDateTime a, LocalDateTime b) {
        return b == null || Objects.requireNonNull(a).isAfter(b) ? a : b;
    }
}
