package io.cyclium.workflow;

import java.util.List;

/**
 * Instance statuses as stored: pending → running → completed | failed | canceled, and blocked
 * (an approval gate with nothing else to run, or a paused failure) back to running. The three
 * in-flight ones are the statuses under the unique (workflow, subject) index of V7.
 */
public final class InstanceStatus {

    public static final String PENDING = "pending";
    public static final String RUNNING = "running";
    public static final String BLOCKED = "blocked";
    public static final String COMPLETED = "completed";
    public static final String FAILED = "failed";
    public static final String CANCELED = "canceled";

    public static final List<String> IN_FLIGHT = List.of(PENDING, RUNNING, BLOCKED);

    private InstanceStatus() {
    }
}
