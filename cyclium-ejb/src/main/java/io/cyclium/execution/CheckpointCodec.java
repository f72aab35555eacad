package io.cyclium.execution;

import io.cyclium.episode.CheckpointMigrationException;
import io.cyclium.episode.RunSnapshot;
import io.cyclium.episode.Strategy;
import io.cyclium.store.JsonText;
import jakarta.json.JsonObject;

/**
 * A strategy's state to and from its checkpoint: JSON-B text tagged with the strategy's state
 * version. An older checkpoint is migrated one version at a time through the strategy's hook; a
 * newer one (a rollback of the code) cannot be read and fails the episode rather than starting it
 * over from init, which would replay what the checkpoint already covered.
 */
final class CheckpointCodec {

    private CheckpointCodec() {
    }

    static String write(Object state) {
        return JsonText.jsonb().toJson(state);
    }

    static Object read(Strategy<Object> strategy, RunSnapshot.SavedCheckpoint cp) {
        JsonObject json = JsonText.parseObject(cp.state());
        int version = cp.schemaVersion();
        int target = strategy.stateVersion();
        if (version > target) {
            throw new CheckpointMigrationException("checkpoint " + cp.number() + " has state version " + version
                    + ", newer than " + strategy.getClass().getName() + " understands (" + target + ")");
        }
        while (version < target) {
            json = strategy.migrate(version, json);
            version++;
        }
        return JsonText.jsonb().fromJson(json.toString(), strategy.stateType());
    }
}
