//===- Job.cpp - One run of ksc-run's, on any executor ----------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Job.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

static constexpr std::pair<JobMode, StringLiteral> kModeNames[] = {
    {JobMode::Run, "run"},
    {JobMode::Reverse, "reverse"},
    {JobMode::Forward, "forward"},
    {JobMode::Hvp, "hvp"},
    {JobMode::CheckGrad, "check-grad"},
};

StringRef runner::getJobModeName(JobMode mode) {
  for (const auto &[known, name] : kModeNames)
    if (known == mode)
      return name;
  return "";
}

std::optional<JobMode> runner::parseJobMode(StringRef name) {
  for (const auto &[mode, known] : kModeNames)
    if (known == name)
      return mode;
  return std::nullopt;
}

std::vector<std::string> Job::getKernels() const {
  std::vector<std::string> kernels = {signature.kernel};
  if (usesAdjoint())
    kernels.push_back(adjoint.signature.kernel);
  if (usesTangent())
    kernels.push_back(tangent.signature.kernel);
  return kernels;
}

//===----------------------------------------------------------------------===//
// The data
//===----------------------------------------------------------------------===//

/// The output adjoints of Reverse and Hvp.
static Expected<std::vector<Argument>> readAdjoints(const Job &job,
                                                    ArrayRef<Argument> args,
                                                    JsonReader read) {
  Expected<json::Value> value = read(job.adjointsFile);
  if (!value)
    return value.takeError();
  Expected<std::vector<Argument>> adjoints =
      parseAdjoints(job.adjoint, args, *value);
  if (!adjoints)
    return makeError(job.adjointsFile + ": " + toString(adjoints.takeError()));
  return adjoints;
}

/// The tangents of Forward and Hvp, keyed by the names of the first
/// `numKeyed` arguments of `args` (the arguments of the kernel `tangent` is
/// the tangent kernel of).
static Expected<std::vector<Argument>>
readTangents(const Job &job, const TangentSignature &tangent,
             ArrayRef<Argument> args, unsigned numKeyed, JsonReader read) {
  Expected<json::Value> value = read(job.tangentsFile);
  if (!value)
    return value.takeError();
  Expected<std::vector<Argument>> tangents =
      parseTangents(tangent, args, *value, numKeyed);
  if (!tangents)
    return makeError(job.tangentsFile + ": " + toString(tangents.takeError()));
  // The tangent kernel takes the tangents of the arguments outside --wrt
  // to be zero (what --wrt leaves out is not differentiated).
  if (!job.wrt.empty())
    for (const auto &entry : *value->getAsObject())
      if (!llvm::is_contained(job.wrt, entry.first.str()))
        return makeError(job.tangentsFile + ": argument '" +
                         entry.first.str() + "' is not differentiated (--wrt=" +
                         llvm::join(job.wrt, ",") +
                         "): its tangent is zero; leave it out");
  return tangents;
}

Expected<JobArguments> runner::parseJobArguments(const Job &job,
                                                 JsonReader read) {
  JobArguments data;
  Expected<json::Value> inputs = read(job.inputsFile);
  if (!inputs)
    return inputs.takeError();
  Expected<std::vector<Argument>> args =
      parseArguments(job.signature, *inputs);
  if (!args)
    return makeError(job.inputsFile + ": " + toString(args.takeError()));
  data.args = std::move(*args);
  // (K_hvp's tangents are of arguments of K_adj, which has adjoints of
  // them.)
  Error contiguous = job.usesAdjoint()
                         ? checkContiguous(job.adjoint, data.args)
                         : Error::success();
  if (!contiguous && job.usesTangent() && job.mode != JobMode::Hvp)
    contiguous = checkContiguous(job.tangent, data.args);
  if (contiguous)
    return makeError(job.inputsFile + ": " + toString(std::move(contiguous)));

  if (job.mode == JobMode::Reverse || job.mode == JobMode::Hvp) {
    Expected<std::vector<Argument>> adjoints =
        readAdjoints(job, data.args, read);
    if (!adjoints)
      return adjoints.takeError();
    data.adjoints = std::move(*adjoints);
  }
  if (job.mode == JobMode::Hvp) {
    // K_adj's arguments: K's, then the output adjoints under the names of
    // K_adj's adjoint arguments.
    data.adjArgs = data.args;
    for (unsigned j = 0; j < data.adjoints.size(); ++j) {
      data.adjArgs.push_back(std::move(data.adjoints[j]));
      data.adjArgs.back().param = job.adjoint.adjointParam(j);
    }
    data.adjoints.clear();
  }
  if (job.mode == JobMode::Forward || job.mode == JobMode::Hvp) {
    // The tangents are keyed by the names of K's arguments, for K_hvp those
    // of K_adj's arguments (the adjoint arrays' are zero); messages name K.
    TangentSignature keyed = job.tangent;
    keyed.primalKernel = job.signature.kernel;
    Expected<std::vector<Argument>> tangents = readTangents(
        job, keyed, job.mode == JobMode::Hvp ? data.adjArgs : data.args,
        data.args.size(), read);
    if (!tangents)
      return tangents.takeError();
    data.tangents = std::move(*tangents);
  }
  return data;
}

//===----------------------------------------------------------------------===//
// The modes
//===----------------------------------------------------------------------===//

/// `message`, and which custom derivative rules the kernels of `sigs` use:
/// where a check fails, they are the first suspects.
static Error checkFailed(ArrayRef<const DerivativeSignature *> sigs,
                         const std::string &message) {
  std::string text = message;
  for (const DerivativeSignature *sig : sigs)
    if (!sig->customRules.empty())
      text += "; '" + sig->signature.kernel +
              "' uses the custom derivative rules of " +
              join(sig->customRules, ", ") + ": check them";
  return makeError(text);
}

/// --check-grad: K_adj and K_jvp against finite differences and against
/// each other.
static Error checkGradients(const Job &job, ArrayRef<Argument> args,
                            Launcher launch, raw_ostream &out) {
  GradCheckOptions options = job.check;
  options.only = job.wrt;
  Expected<GradCheckReport> report =
      checkGradient(job.adjoint, args, launch, options);
  if (!report)
    return report.takeError();
  Expected<TangentCheckReport> forward =
      checkTangent(job.tangent, job.adjoint, args, *report, launch, options);
  if (!forward)
    return forward.takeError();
  writeGradCheckReport(out, *report);
  writeTangentCheckReport(out, *forward);
  if (const GradCheckResult *worst = report->worstFailure())
    return checkFailed({&job.adjoint},
                       "gradient check failed: the adjoint of '" + worst->name +
                           "' differs from central differences at " +
                           worst->worst + ": AD " +
                           formatValue(worst->worstAD) + ", FD " +
                           formatValue(worst->worstFD) + " (|AD - FD| is " +
                           formatValue(worst->worstRatio) +
                           " times atol + rtol * |FD|)");
  if (const GradCheckResult *worst = forward->directional.worstFailure())
    return checkFailed(
        {&job.tangent},
        "tangent check failed: the output tangent of '" + worst->name +
            "' differs from central directional differences at " +
            worst->worst + ": AD " + formatValue(worst->worstAD) + ", FD " +
            formatValue(worst->worstFD) + " (|AD - FD| is " +
            formatValue(worst->worstRatio) + " times atol + rtol * |FD|)");
  const DotProductTest &dot = forward->dot;
  if (!dot.passed())
    return checkFailed(
        {&job.tangent, &job.adjoint},
        "dot-product test failed: <Jv, w> = " + formatValue(dot.forward) +
            " from '" + job.tangent.signature.kernel +
            "' but <v, J^T w> = " + formatValue(dot.reverse) + " from '" +
            job.adjoint.signature.kernel + "' (relative difference " +
            formatValue(dot.relativeDifference()) + ", tolerance " +
            formatValue(dot.tol) + ")");
  return Error::success();
}

Error runner::runJob(const Job &job, JobArguments &data, Launcher launch,
                     raw_ostream &out) {
  switch (job.mode) {
  case JobMode::CheckGrad:
    return checkGradients(job, data.args, launch, out);
  case JobMode::Reverse:
    if (Error error = runAdjoint(job.adjoint, data.args, data.adjoints, launch))
      return error;
    writeArrays(out, data.adjoints);
    return Error::success();
  case JobMode::Forward:
    if (Error error = runTangent(job.tangent, data.args, data.tangents, launch))
      return error;
    writeTangents(out, data.args, data.tangents);
    return Error::success();
  case JobMode::Hvp: {
    if (Error error =
            runTangent(job.tangent, data.adjArgs, data.tangents, launch))
      return error;
    writeArrays(out, getHessianVectorProducts(job.adjoint, job.tangent,
                                              data.tangents));
    return Error::success();
  }
  case JobMode::Run:
    if (Error error = launch(job.signature.kernel, data.args))
      return error;
    writeArrays(out, data.args);
    return Error::success();
  }
  llvm_unreachable("unknown job mode");
}
