package io.cyclium.api;

import io.cyclium.store.Jsons;
import io.cyclium.runtime.ActorView;
import io.cyclium.operations.CheckpointView;
import io.cyclium.operations.EpisodeDetail;
import io.cyclium.operations.EpisodeView;
import io.cyclium.operations.StepView;
import io.cyclium.finding.FindingView;
import io.cyclium.node.NodeModes;
import io.cyclium.node.NodeView;
import io.cyclium.output.OutputOutcome;
import io.cyclium.output.OutputView;
import io.cyclium.recovery.SweepReport;
import io.cyclium.episode.TriggerRequestStore;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The OpenAPI 3.0 document of this API: paths, parameters, request bodies and errors are kept by
 * hand in {@code openapi.json} beside this class (bodies are parsed by {@link JsonBodies}, so no
 * type describes them); the response schemas are generated from the records the resources return.
 * {@code OpenApiDocumentTest} fails when a resource method is missing from it.
 */
public final class OpenApiDocument {

    static final String TEMPLATE = "openapi.json";

    /** Every record a response carries, under its schema name. */
    static final Map<Class<?>, String> RECORDS = records();

    private OpenApiDocument() {
    }

    private static Map<Class<?>, String> records() {
        Map<Class<?>, String> r = new LinkedHashMap<>();
        r.put(ApiError.class, "ApiError");
        r.put(EpisodeView.class, "Episode");
        r.put(EpisodeDetail.class, "EpisodeDetail");
        r.put(StepView.class, "Step");
        r.put(CheckpointView.class, "Checkpoint");
        r.put(OutputView.class, "Output");
        r.put(OutputOutcome.class, "OutputOutcome");
        r.put(FindingView.class, "Finding");
        r.put(EpisodeResource.Started.class, "Started");
        r.put(EpisodeResource.SignalSent.class, "SignalSent");
        r.put(EpisodeDetail.WaitView.class, "EpisodeWait");
        r.put(EpisodeDetail.KeptSignalView.class, "KeptSignal");
        r.put(EventIntakeServlet.Accepted.class, "EventAccepted");
        r.put(EventIntakeServlet.AcceptedBatch.class, "EventBatchAccepted");
        r.put(EventIntakeServlet.Matched.class, "EventMatch");
        r.put(NodeView.class, "Node");
        r.put(NodeResource.ThisNode.class, "ThisNode");
        r.put(ActorView.class, "Actor");
        r.put(ActorView.ExpectationInfo.class, "ExpectationInfo");
        r.put(io.cyclium.operations.PauseView.class, "Pause");
        r.put(NodeModes.Status.class, "ModeStatus");
        r.put(SweepReport.class, "SweepReport");
        r.put(TriggerRequestStore.Request.class, "TriggerRequest");
        r.put(io.cyclium.claims.ClaimQueries.ClaimRow.class, "Claim");
        r.put(io.cyclium.claims.ClaimQueries.HeldByNode.class, "ClaimsHeldByNode");
        r.put(io.cyclium.claims.Claims.Stats.class, "ClaimStats");
        r.put(io.cyclium.operations.EpisodeThroughput.Window.class, "Throughput");
        r.put(io.cyclium.operations.EpisodeThroughput.Minute.class, "ThroughputMinute");
        r.put(io.cyclium.stats.ActorOutcomes.Window.class, "ActorOutcomes");
        r.put(HealthResource.ProbeAnswer.class, "ProbeAnswer");
        r.put(io.cyclium.health.NodeHealth.Check.class, "HealthCheck");
        r.put(io.cyclium.stats.ActorOutcomes.Row.class, "ActorOutcome");
        r.put(io.cyclium.retention.RetentionOperations.Windows.class, "RetentionWindows");
        r.put(io.cyclium.operations.AuditRecord.class, "AuditRecord");
        r.put(io.cyclium.retention.RetentionOperations.Started.class, "RetentionStarted");
        r.put(io.cyclium.retention.RetentionQueries.Execution.class, "RetentionExecution");
        r.put(io.cyclium.retention.RetentionQueries.Run.class, "RetentionRun");
        r.put(io.cyclium.retention.RetentionQueries.StepCounts.class, "RetentionStep");
        r.put(io.cyclium.workflow.WorkflowView.class, "Workflow");
        r.put(io.cyclium.workflow.DefinitionVersionView.class, "WorkflowDefinitionVersion");
        r.put(io.cyclium.workflow.InstanceView.class, "WorkflowInstance");
        r.put(io.cyclium.workflow.InstanceDetail.class, "WorkflowInstanceDetail");
        r.put(io.cyclium.workflow.StepView.class, "WorkflowStep");
        r.put(io.cyclium.workflow.TransitionRow.class, "WorkflowTransition");
        r.put(io.cyclium.operations.BulkPreview.class, "BulkPreview");
        r.put(io.cyclium.operations.BulkActionView.class, "BulkAction");
        r.put(io.cyclium.operations.BulkItemView.class, "BulkItem");
        r.put(BulkActionResource.BulkActionPage.class, "BulkActionPage");
        return Map.copyOf(r);
    }

    /** The document with its server URL set to {@code apiBasePath} (e.g. {@code /cyclium/api}). */
    public static JsonObject build(String apiBasePath) {
        JsonObject template = template();
        RecordSchemas generator = new RecordSchemas(RECORDS);
        JsonObjectBuilder schemas = Jsons.object(template.getJsonObject("components").getJsonObject("schemas"));
        RECORDS.forEach((type, name) -> schemas.add(name, generator.schemaOf(type)));
        JsonObjectBuilder components = Jsons.object(template.getJsonObject("components")).add("schemas", schemas);
        return Jsons.object(template)
                .add("servers", Jsons.array().add(Jsons.object().add("url", apiBasePath)))
                .add("components", components)
                .build();
    }

    static JsonObject template() {
        try (InputStream in = OpenApiDocument.class.getResourceAsStream(TEMPLATE)) {
            if (in == null) {
                throw new IllegalStateException(TEMPLATE + " is missing beside " + OpenApiDocument.class.getName());
            }
            try (JsonReader reader = Jsons.reader(in)) {
                return reader.readObject();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
