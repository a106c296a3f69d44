import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type TaskStore } from '@a2a-js/sdk/server';
import { RelayedTaskBus } from './relayed-task-bus.js';
import type { Agent } from '../../agent/agent.js';
import { ownedSessions } from '../../agent/owned-sessions.js';
import type { A2aTaskRecords } from '../../storage/a2a-task-records.js';
import { AgentError } from '../../agent/agent-error.js';
import { agentMessage, textPart } from './a2a-messages.js';
import { describeAnswers, permissionAnswer } from './a2a-permission-answer.js';
import { ownerOf } from './a2a-principal.js';
import { refusedPart, toPrompt } from './a2a-prompt.js';
import { TaskPublisher } from './a2a-task-publisher.js';
import { A2aTaskTurns } from './a2a-task-turns.js';
import type { OpenQuestion } from './ask-a2a-peer.js';
import { TaskRecorder } from './task-recorder.js';
import { clipForLog } from './clip-for-log.js';
import { endedAs, taskEndedReply } from './task-ended-reply.js';

const RUNS_ELSEWHERE =
  'This task is running on another replica of this agent, which alone can take messages for it; wait until it ends (tasks/get), then send a new message on the same contextId.';

export interface A2aExecutorOptions {
  /** The project the A2A sessions work in. */
  cwd: string;
  /** How long a permission question waits for the peer before the call is rejected. */
  inputTimeoutMs: number;
  /** Told when this process took a conversation's session: its tasks that run nowhere are dead. */
  onSessionTaken?: (owner: string, contextId: string) => Promise<unknown>;
  /** Whether another live replica holds the conversation's session (so it may run the task); default: never. */
  runsElsewhere?: (task: { owner: string; contextId: string }) => Promise<boolean>;
  log?: (message: string) => void;
}

/** A task whose turn runs in this process. */
interface RunningTask {
  publisher: TaskPublisher;
  sessionId: string;
  controller: AbortController;
  /** Its turns: the message's, and those of messages sent on the task while it runs. */
  turns: A2aTaskTurns;
  /** Settles when the turn has published its terminal state. */
  done: Promise<void>;
  question: OpenQuestion | undefined;
}

/**
 * The SDK's `AgentExecutor` over the agent: a task per turn, an A2A `contextId` per agent
 * session (bound in the task store, so a restarted server continues the conversation), a
 * follow-up message on an `input-required` task answers its permission question.
 */
export class A2aAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, RunningTask>();
  private readonly binding = new Map<string, Promise<string>>();

  constructor(
    private readonly agent: Agent,
    private readonly records: A2aTaskRecords,
    private readonly taskStore: TaskStore,
    private readonly options: A2aExecutorOptions,
  ) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const ids = { taskId: request.taskId, contextId: request.contextId };
    const publisher = new TaskPublisher(bus, ids);
    const message = request.userMessage;
    const running = this.running.get(request.taskId);
    if (running) return this.followUp(running, request, publisher);
    if (request.task) {
      if (await this.runsElsewhere(ownerOf(request.context), request.task.contextId)) {
        // Its turn runs on another replica: a reply that leaves the task as it is.
        bus.publish(AgentEvent.message(agentMessage(ids, [textPart(RUNS_ELSEWHERE)])));
        return;
      }
      // Its turn ended here after the SDK read it as live (it left the running map meanwhile): the
      // stored end stands, and this request is told so rather than shown a failure.
      const ended = endedAs((await this.taskStore.load(request.taskId, request.context))?.status?.state);
      if (ended) return publisher.message(taskEndedReply(ids, ended));
      // A task this process is not running (its turn ended with a previous process).
      publisher.task(TaskState.TASK_STATE_WORKING);
      publisher.status(TaskState.TASK_STATE_FAILED, agentMessage(ids, [textPart('This task is no longer running; send a new message without a taskId to continue the conversation.')]));
      return;
    }
    const prompt = toPrompt(message.parts);
    const refused = prompt.length === 0 ? 'The message has no content: send at least one text, data, file or URL part.' : refusedPart(message.parts);
    if (refused) {
      // Refused before anything is stored or sent: the conversation is as it was.
      publisher.task(TaskState.TASK_STATE_SUBMITTED, [message]);
      publisher.status(TaskState.TASK_STATE_REJECTED, agentMessage(ids, [textPart(refused)]));
      return;
    }
    const owner = ownerOf(request.context);
    let sessionId: string;
    try {
      sessionId = await this.sessionFor(request.contextId, owner);
    } catch (error) {
      if (!AgentError.isInstance(error) || error.code !== 'session_in_use') throw error;
      // Another replica runs a task of this conversation: one writer per session.
      publisher.task(TaskState.TASK_STATE_SUBMITTED, [message]);
      publisher.status(TaskState.TASK_STATE_REJECTED, agentMessage(ids, [textPart(`This conversation has a task running on another replica; send the message again once it ended. (${error.message})`)]));
      return;
    }
    const recorder = new TaskRecorder(bus, request.taskId, {
      store: this.taskStore,
      context: request.context,
      userMessage: message,
      onError: (error) => this.options.log?.(`A2A task ${request.taskId}: storing an event failed: ${(error as Error).message}`),
    });
    const controller = new AbortController();
    const turns = new A2aTaskTurns({
      publisher,
      signal: controller.signal,
      inputTimeoutMs: this.options.inputTimeoutMs,
      onQuestion: (question) => {
        task.question = question;
      },
    });
    const task: RunningTask = { publisher, sessionId, controller, turns, done: Promise.resolve(), question: undefined };
    // Known as running here before it is stored: restart recovery never takes it for dead.
    this.running.set(request.taskId, task);
    // On a shared store a peer may cancel the task through another replica.
    const unwatchCancel = this.records.watchCancel?.(request.taskId, () => controller.abort());
    publisher.task(TaskState.TASK_STATE_SUBMITTED, [message]);
    publisher.status(TaskState.TASK_STATE_WORKING, undefined, { sessionId });
    // A task is one question with its own answer: a second task on a busy context waits its turn.
    // The task is the turn key: a message sent on it joins this turn, never another task's.
    turns.run(this.agent.process({ sessionId, prompt }, { signal: controller.signal, sendMode: 'queue', turnKey: turns }));
    task.done = turns
      .finish()
      .finally(() => unwatchCancel?.())
      .finally(() => recorder.close())
      .finally(() => this.running.delete(request.taskId))
      .finally(() => this.handBack(sessionId));
    await task.done;
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const running = this.running.get(taskId);
    if (!running && bus instanceof RelayedTaskBus && this.records.requestCancel) {
      const stored = await this.records.loadTask(taskId, bus.source.owner);
      if (stored && (await this.runsElsewhere(stored.owner, stored.contextId))) {
        // The replica running the turn cancels it; its canceled state comes back on this bus.
        await this.records.requestCancel(taskId);
        return;
      }
    }
    if (!running) {
      // The bus outlived its turn: nothing runs, so the task is simply marked canceled.
      new TaskPublisher(bus, { taskId, contextId: '' }).status(TaskState.TASK_STATE_CANCELED);
      return;
    }
    running.controller.abort();
    await running.done;
  };

  /** A message on a task that is still running: an answer to its question, or a steer for the turn. */
  private async followUp(running: RunningTask, request: RequestContext, publisher: TaskPublisher): Promise<void> {
    const message = request.userMessage;
    const question = running.question;
    if (question) {
      const chosen = permissionAnswer(message.parts, question.options);
      if (!chosen) {
        // The SDK ends a request's event stream on a status update, not on a task event.
        publisher.task(TaskState.TASK_STATE_INPUT_REQUIRED);
        publisher.status(
          TaskState.TASK_STATE_INPUT_REQUIRED,
          agentMessage(publisher.ids, [textPart(`That is not an answer to "${question.title}". Reply with one of ${describeAnswers(question.options)}.`)]),
        );
        return;
      }
      publisher.task(TaskState.TASK_STATE_WORKING);
      running.question = undefined;
      question.answer(chosen.optionId);
    } else {
      const prompt = toPrompt(message.parts);
      // Sent before the task's turn started (it waits behind another on the session): it joins that turn once it runs.
      await running.turns.started();
      // Joins the running turn before its next model step (ACP's steering), or runs as a turn of
      // its own in this task when the turn ended first: either way the task answers it.
      if (prompt.length > 0 && !running.turns.open) {
        // Its final state was decided as this message came.
        publisher.message(taskEndedReply(publisher.ids, running.turns.endedAs ?? 'ended'));
        return;
      }
      if (prompt.length > 0) running.turns.add(this.agent.process({ sessionId: running.sessionId, prompt }, { sendMode: 'steer', turnKey: running.turns, signal: running.controller.signal }));
      publisher.task(TaskState.TASK_STATE_WORKING);
    }
    // Returning while the turn still works would let the SDK close the task's event bus.
    await running.done;
  }

  private async runsElsewhere(owner: string, contextId: string): Promise<boolean> {
    return (await this.options.runsElsewhere?.({ owner, contextId })) ?? false;
  }

  /** Whether the task's turn runs in this process. */
  runsHere(taskId: string): boolean {
    return this.running.has(taskId);
  }

  /**
   * On a shared store, the session is closed (its lease released, after the task's last state
   * was stored) once no task of this process runs on it: any replica may serve the next message.
   */
  private async handBack(sessionId: string): Promise<void> {
    if (!this.records.shared) return;
    for (const other of this.running.values()) if (other.sessionId === sessionId) return;
    // `ifIdle`: a turn another face of this process runs on the session is not cut short.
    await this.agent.sessions.close(sessionId, { ifIdle: true }).catch((error: unknown) => this.options.log?.(`A2A: closing session ${sessionId} failed: ${(error as Error).message}`));
  }

  /**
   * The session of a peer's context, bound on first use, reused after a restart or from another
   * replica, and opened (its lease taken) before the task is stored: a task's turn holds its
   * session's lease from before the task is stored until after its last state is.
   */
  private sessionFor(contextId: string, owner: string): Promise<string> {
    const key = `${owner}\u0000${contextId}`;
    const pending = this.binding.get(key);
    if (pending) return pending;
    const binding = (async () => {
      // The same principal's ACP clients see these sessions; other principals do not.
      const sessions = ownedSessions(this.agent.sessions, owner);
      const bound = await this.records.contextSession(contextId, owner);
      if (bound && (await sessions.get(bound.sessionId, this.options.cwd))) {
        await sessions.activate(bound.sessionId, this.options.cwd);
        // This process holds the session now: tasks of the conversation it does not run are dead.
        await this.options.onSessionTaken?.(owner, contextId);
        return bound.sessionId;
      }
      const session = await sessions.create({ cwd: this.options.cwd });
      await this.records.bindContext(contextId, owner, session.sessionId);
      this.options.log?.(`A2A context ${clipForLog(contextId)} → session ${session.sessionId}`);
      return session.sessionId;
    })().finally(() => this.binding.delete(key));
    this.binding.set(key, binding);
    return binding;
  }
}
