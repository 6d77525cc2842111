# Sourced by the benchmark scripts (agent_matrix.sh, transfer_bench.sh,
# zero_shot_bench.sh): how a benchmark names its workloads and makes them.
# Needs $root (the source root) and, for make_workload, $mmapctl.

# The transfer benchmark's held-out programs (none is in scripts/pretrain's
# training set; tests/shipped_network_test.sh checks the checksums): four
# of the lstm family, left out of training entirely; four real modules of
# bench/real_programs/held_out.txt; two generated programs of trained
# families at sizes and seeds never trained on.
transfer_programs="lstm-1000@tpu-v4i lstm-3000@tpu-v4i lstm-3000@gpu-h100 lstm-10000@tpu-v4i
dlrm_jax_train_cpu.hlo llama31-70b-bf16_jax_train_gpu.hlo
gemma3-1b-forward_jax_infer_cpu.hlo resnet50-training_jax_train_gpu.hlo
transformer-10000 cnn-16500"

# Writes the workload named $1 to $2: generated ones are training programs,
# seed 1, as FAMILY-BUFFERS (on tpu-v4i) or FAMILY-BUFFERS@PROFILE;
# imported ones are MODULE.hlo of testdata/hlo (ssd_mobilenet and llama
# name two of them), for tpu-v4i.
make_workload() {
  local name="$1" path="$2"
  case "$name" in
    ssd_mobilenet) name=ssd_mobilenet_tf.hlo ;;
    llama) name=hlo_llama3_8b_cp_bf16_1x4.hlo ;;
  esac
  case "$name" in
    *.hlo)
      "$mmapctl" import "$root/testdata/hlo/$name" --hardware tpu-v4i \
          --out "$path" >/dev/null ;;
    mlp-*|transformer-*|cnn-*|lstm-*)
      local spec="${name%@*}" profile=tpu-v4i
      [[ "$name" == *@* ]] && profile="${name#*@}"
      "$mmapctl" generate --family "${spec%-*}" --buffers "${spec##*-}" \
          --profile "$profile" --seed 1 --mode training \
          --out "$path" >/dev/null ;;
    *) echo "${0##*/}: unknown workload '$name'" >&2; exit 2 ;;
  esac
}
