package io.cyclium.workflow;

import java.util.List;

/**
 * What starts an instance besides a manual start: an event type (with the same payload filters as
 * expectations, e.g. {@code "kind=cpu"}) or an ISO-8601 interval ({@code every}, e.g. PT1H).
 */
public record WorkflowTrigger(String type, String event, List<String> filter, String every) {

    public static final String MANUAL = "manual";
    public static final String EVENT = "event";
    public static final String SCHEDULE = "schedule";

    public WorkflowTrigger {
        filter = filter == null ? List.of() : List.copyOf(filter);
    }
}
