package io.cyclium.timing;

/**
 * Thrown when a cron expression cannot be parsed, or when it parses but no matching minute exists
 * within the search horizon of {@link CronSchedule#nextAfter(java.time.Instant)}.
 *
 * <p>The message always starts with the offending spec in quotes, followed by what went wrong,
 * for example {@code cron "61 * * * *": minute 61 is out of range 0-59}.
 */
public class InvalidCronException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String spec;
    private final String problem;

    public InvalidCronException(String spec, String problem) {
        super("cron \"" + spec + "\": " + problem);
        this.spec = spec;
        this.problem = problem;
    }

    /** The cron expression as it was given. */
    public String spec() {
        return spec;
    }

    /** The problem on its own, without the spec prefix. */
    public String problem() {
        return problem;
    }
}
