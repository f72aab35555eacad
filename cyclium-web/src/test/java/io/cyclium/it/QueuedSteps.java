package io.cyclium.it;

import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;

/**
 * Waits for a workflow step that waits for its concurrency key: the first step of the given
 * instances whose {@code queuedBecause} is set, read through whatever the caller reads steps with
 * (the API, the command-line client).
 */
final class QueuedSteps {

    /** The steps of one workflow instance, as the API's JSON shows them. */
    @FunctionalInterface
    interface StepReader {
        List<JsonObject> steps(String instanceId) throws Exception;
    }

    private QueuedSteps() {
    }

    static JsonObject awaitOne(Duration timeout, String what, List<String> instances, StepReader reader) {
        return Await.until(timeout, what, () -> {
            for (String id : instances) {
                try {
                    for (JsonObject step : reader.steps(id)) {
                        if (step.containsKey("queuedBecause") && !step.isNull("queuedBecause")) {
                            return step;
                        }
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            return null;
        });
    }
}
