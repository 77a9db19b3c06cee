#!/bin/sh
echo checking
