#!/bin/bash
# The SvS-vs-GRPO experiment of docs/results.md, continued on the faster decoding kernels (their
# draws are bit for bit those of the kernels seed 1 ran on). Design fixed before the first run.
cd /work/exp/tree2
export VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json
R=vps/reward,vps/extracted,vps/true_valid,vps/leak,vps/leak@50,vps/reward@50,mix/oqa,mix/vps,mix/spa,entropy
node bin/rlvr-lab.mjs ablate --loop svs --seeds 2,3 --steps 100 --eval-n 64 --eval-problems 64 --config docs/configs/svs-lab.json --report $R --json /work/exp/svs-seeds23.json > /work/exp/svs23.out 2> /work/exp/svs23.err
node bin/rlvr-lab.mjs ablate --loop grpo --seeds 1,2,3 --steps 2000 --eval-n 64 --eval-problems 64 --config docs/configs/grpo-lr3e-5.json --match-tokens /work/exp/svs-seed1.json,/work/exp/svs-seeds23.json --report entropy,reward --json /work/exp/grpo.json > /work/exp/grpo.out 2> /work/exp/grpo.err
node bin/rlvr-lab.mjs ablate --loop svs --seeds 1,2,3 --steps 50 --eval-n 64 --eval-problems 64 --config docs/configs/svs-lab-naive.json --report $R --json /work/exp/naive.json > /work/exp/naive.out 2> /work/exp/naive.err
echo ALLDONE > /work/exp/done
# (continued by run3.sh on commit 4b8387d once seeds 2 and 3 had finished: the same two
#  commands as above for GRPO and the naive reward, unchanged)
