package io.cyclium.telemetry;

/**
 * The names of the attributes Cyclium's spans carry ({@link Tracing}), all under {@code cyclium.}:
 * span attributes, not configuration keys (the configuration doc test skips this file).
 */
public final class SpanAttributes {

    public static final String ACTOR = "cyclium.actor";
    public static final String EXPECTATION = "cyclium.expectation";
    public static final String EPISODE_ID = "cyclium.episode.id";
    /** The episode's attempt (1, then one more per recovery restart). */
    public static final String ATTEMPT = "cyclium.attempt";
    /** The node that ran this run. */
    public static final String NODE = "cyclium.node";
    /** The trigger type: event, schedule, cron, manual, workflow, … */
    public static final String TRIGGER = "cyclium.trigger";
    /** Whether the run continued from a checkpoint (recovery, approval, wait). */
    public static final String RESUMED = "cyclium.resumed";
    /** How the run ended: a terminal status (done, failed, partially_failed, canceled) or blocked, claim_lost, stopped, busy, gave_up. */
    public static final String OUTCOME = "cyclium.outcome";
    /** The step's turn in the run. */
    public static final String TURN = "cyclium.turn";
    /** What a journal write wrote. */
    public static final String WRITE = "cyclium.write";
    public static final String OUTPUT_TYPE = "cyclium.output.type";
    public static final String WORKFLOW = "cyclium.workflow";
    public static final String WORKFLOW_INSTANCE_ID = "cyclium.workflow.instance.id";
    public static final String WORKFLOW_STEP = "cyclium.workflow.step";

    private SpanAttributes() {
    }
}
